// Iceberg Java as an independent oracle for the conformance kit.
//
// Every call crosses py4j as strings: call(op, argsJson) returns a JSON envelope
//   {"ok": true, "value": <json>}  or  {"ok": false, "kind": "rejected"|"unsupported"|"crash",
//                                       "class": "<java exception>", "message": "..."}
// so typed Java values (Long, Float, BigDecimal, ...) are built and consumed on the Java side
// only; py4j never boxes a number in between.
package icebergconformance;

import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.DateTimeException;
import java.util.Iterator;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.IcebergBuild;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.ManifestEvaluator;
import org.apache.iceberg.expressions.StrictMetricsEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.BucketUtil;
import org.apache.iceberg.util.JsonUtil;

public final class ConformanceOracle {
  private static final ObjectMapper MAPPER = JsonUtil.mapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ConformanceOracle() {}

  /** Thrown for an input Java has no way to process (reported UNSUPPORTED). */
  static final class Unsupported extends RuntimeException {
    Unsupported(String message) {
      super(message);
    }
  }

  public static String call(String op, String argsJson) {
    ObjectNode out = NODES.objectNode();
    try {
      JsonNode args = MAPPER.readTree(argsJson);
      out.put("ok", true);
      out.set("value", dispatch(op, args));
    } catch (Unsupported e) {
      fail(out, "unsupported", e);
    } catch (IllegalArgumentException | ValidationException | UnsupportedOperationException
        | DateTimeException | IllegalStateException | UncheckedIOException
        | ArithmeticException e) {
      // Iceberg refuses input through these (Preconditions.checkArgument, ValidationException,
      // parse errors); ArithmeticException is what BigDecimal throws on a lossy scale change.
      fail(out, "rejected", e);
    } catch (Throwable e) {
      fail(out, "crash", e);
    }
    try {
      return MAPPER.writeValueAsString(out);
    } catch (Exception e) {
      return "{\"ok\": false, \"kind\": \"crash\", \"class\": \"json\", \"message\": \"cannot write result\"}";
    }
  }

  private static void fail(ObjectNode out, String kind, Throwable e) {
    out.removeAll();
    out.put("ok", false);
    out.put("kind", kind);
    out.put("class", e.getClass().getName());
    String msg = e.getMessage();
    Throwable cause = e.getCause();
    if (cause != null && cause.getMessage() != null && (msg == null || !msg.contains(cause.getMessage()))) {
      msg = (msg == null ? "" : msg + ": ") + cause.getMessage();
    }
    out.put("message", msg == null ? e.toString() : msg);
  }

  private static JsonNode dispatch(String op, JsonNode a) throws Exception {
    switch (op) {
      case "version":
        return NODES.textNode(IcebergBuild.version());
      case "hash":
        return NODES.numberNode(hash(parseType(a.get("type")), a.get("value")));
      case "transform":
        return transform(a.get("transform").asText(), parseType(a.get("type")), a.get("value"));
      case "result_type":
        return typeToJson(boundTransform(a.get("transform").asText(), parseType(a.get("type")))
            .getResultType(parseType(a.get("type"))));
      case "to_bytes":
        {
          Type t = parseType(a.get("type"));
          ByteBuffer buf = Conversions.toByteBuffer(t, value(t, a.get("value")));
          return NODES.textNode(hex(buf));
        }
      case "from_bytes":
        {
          Type t = parseType(a.get("type"));
          ByteBuffer buf = ByteBuffer.wrap(unhex(a.get("data").asText())).order(ByteOrder.LITTLE_ENDIAN);
          Object v = Conversions.fromByteBuffer(t, buf);
          return valueToJson(t, v);
        }
      case "value_json":
        {
          Type t = parseType(a.get("type"));
          return valueToJson(t, value(t, a.get("value")));
        }
      case "type_json":
        return typeToJson(parseType(a.get("type")));
      case "schema_json":
        {
          Schema schema = SchemaParser.fromJson(a.get("schema"));
          Schema.checkCompatibility(schema, a.get("format_version").asInt());
          return MAPPER.readTree(SchemaParser.toJson(schema));
        }
      case "partition_spec_json":
        {
          Schema schema = SchemaParser.fromJson(a.get("schema"));
          PartitionSpec spec = PartitionSpecParser.fromJson(schema, a.get("spec"));
          return MAPPER.readTree(PartitionSpecParser.toJson(spec));
        }
      case "table_metadata":
        {
          TableMetadata md =
              TableMetadataParser.read(org.apache.iceberg.Files.localInput(a.get("path").asText()));
          return MAPPER.readTree(TableMetadataParser.toJson(md));
        }
      case "table_metadata_as":
        {
          // the metadata as a reader of a later format version holds it: Java upgrades the
          // read metadata in place (TableMetadata.Builder.upgradeFormatVersion)
          TableMetadata md =
              TableMetadataParser.read(org.apache.iceberg.Files.localInput(a.get("path").asText()));
          int version = a.get("format_version").asInt();
          if (md.formatVersion() < version) {
            md = TableMetadata.buildFrom(md).upgradeFormatVersion(version).build();
          }
          return MAPPER.readTree(TableMetadataParser.toJson(md));
        }
      case "avro_schema":
        {
          // the Avro schema Java writes Avro data files with (AvroSchemaUtil.convert)
          Schema schema = SchemaParser.fromJson(a.get("schema"));
          Object avro;
          try {
            avro = org.apache.iceberg.avro.AvroSchemaUtil.convert(schema, "table");
          } catch (UnsupportedOperationException e) {
            throw new Unsupported("no Avro mapping: " + e.getMessage());
          }
          return MAPPER.readTree(avro.toString());
        }
      case "expression_json":
        return MAPPER.readTree(ExpressionParser.toJson(ExpressionParser.fromJson(a.get("expression"))));
      case "expression_bind":
        {
          Schema schema = SchemaParser.fromJson(a.get("schema"));
          Expression bound = Binder.bind(schema.asStruct(), ExpressionParser.fromJson(a.get("expression")),
              a.get("case_sensitive").asBoolean());
          return MAPPER.readTree(ExpressionParser.toJson(bound));
        }
      case "expression_evaluate":
        {
          Schema schema = SchemaParser.fromJson(a.get("schema"));
          Evaluator evaluator = new Evaluator(schema.asStruct(),
              ExpressionParser.fromJson(a.get("expression")), a.get("case_sensitive").asBoolean());
          return NODES.booleanNode(evaluator.eval(row(schema.asStruct(), a.get("row"))));
        }
      case "projection_accepts":
        {
          Schema schema = SchemaParser.fromJson(a.get("schema"));
          PartitionSpec spec = PartitionSpecParser.fromJson(schema, a.get("spec"));
          // constants of binary and fixed columns are hex (the JSON single-value form), which the
          // schema-less parser reads as strings that do not convert: those are read by the
          // schema-aware parser (it reads a timestamp_ns constant's nanoseconds as microseconds,
          // so the other types keep the schema-less one)
          Expression expr = hexConstants(schema, a.get("expression"))
              ? ExpressionParser.fromJson(MAPPER.writeValueAsString(a.get("expression")), schema)
              : ExpressionParser.fromJson(a.get("expression"));
          Expression projected = "strict".equals(a.get("mode").asText())
              ? Projections.strict(spec).project(expr)
              : Projections.inclusive(spec).project(expr);
          Types.StructType partitionType = spec.partitionType();
          return NODES.booleanNode(
              new Evaluator(partitionType, projected).eval(row(partitionType, a.get("partition"))));
        }
      case "metrics_evaluate":
        {
          Schema schema = SchemaParser.fromJson(a.get("schema"));
          Expression expr = ExpressionParser.fromJson(a.get("expression"));
          DataFile file = dataFile(a.get("file"));
          boolean strict = "strict".equals(a.get("mode").asText());
          return NODES.booleanNode(strict
              ? new StrictMetricsEvaluator(schema, expr, true).eval(file)
              : new InclusiveMetricsEvaluator(schema, expr, true).eval(file));
        }
      case "manifest_evaluate":
        {
          Schema schema = SchemaParser.fromJson(a.get("schema"));
          PartitionSpec spec = PartitionSpecParser.fromJson(schema, a.get("spec"));
          Expression expr = ExpressionParser.fromJson(a.get("expression"));
          return NODES.booleanNode(
              ManifestEvaluator.forRowFilter(expr, spec, true).eval(manifest(spec, a.get("partitions"))));
        }
      case "residual":
        {
          Schema schema = SchemaParser.fromJson(a.get("schema"));
          PartitionSpec spec = PartitionSpecParser.fromJson(schema, a.get("spec"));
          Expression expr = ExpressionParser.fromJson(a.get("expression"));
          Expression residual = ResidualEvaluator.of(spec, expr, a.get("case_sensitive").asBoolean())
              .residualFor(row(spec.partitionType(), a.get("partition")));
          return MAPPER.readTree(ExpressionParser.toJson(residual));
        }
      case "delete_planning":
        return deletePlanning(a);
      case "scan":
        return scan(a);
      case "plan_files":
        return planFiles(a);
      default:
        throw new Unsupported("unknown oracle operation " + op);
    }
  }

  /** Whether a predicate (term form) tests a binary or fixed column with constants. */
  static boolean hexConstants(Schema schema, JsonNode e) {
    JsonNode term = e == null ? null : e.get("term");
    if (term == null || !term.isTextual() || (e.get("value") == null && e.get("values") == null)) {
      return false;
    }
    Types.NestedField f = schema.findField(term.asText());
    return f != null
        && (f.type().typeId() == Type.TypeID.BINARY || f.type().typeId() == Type.TypeID.FIXED);
  }

  /** Whether a predicate (term form) or one inside its and/or/not compares a binary or fixed
   * column with constants. */
  static boolean anyHexConstants(Schema schema, JsonNode e) {
    if (e == null || !e.isObject()) {
      return false;
    }
    return hexConstants(schema, e) || anyHexConstants(schema, e.get("child"))
        || anyHexConstants(schema, e.get("left")) || anyHexConstants(schema, e.get("right"));
  }

  /** A scan's filter: hex constants of binary and fixed columns are read by the schema-aware
   * parser (see projection_accepts), every other filter by the schema-less one. */
  static Expression scanFilter(Schema schema, JsonNode e) throws Exception {
    return anyHexConstants(schema, e)
        ? ExpressionParser.fromJson(MAPPER.writeValueAsString(e), schema)
        : ExpressionParser.fromJson(e);
  }

  static Schema snapshotSchema(Table table, long snapshotId) {
    Integer schemaId = table.snapshot(snapshotId).schemaId();
    return schemaId != null ? table.schemas().get(schemaId) : table.schema();
  }

  // --- table scans ----------------------------------------------------------------------

  /** The rows of a snapshot that match a filter, as Iceberg's generic reader returns them
   * (IcebergGenerics: planFiles with the filter, deletes applied, the residual evaluated on each
   * row); values in the JSON single-value form, columns by name. The table is loaded from its
   * metadata file with HadoopTables, reached by reflection so that the helper compiles against
   * the Iceberg runtime jar alone (Hadoop is on Spark's class path at run time). */
  static JsonNode scan(JsonNode a) throws Exception {
    Table table = loadTable(a.get("metadata").asText());
    long snapshotId = a.get("snapshot_id").asLong();
    Schema schema = snapshotSchema(table, snapshotId);
    Expression filter = scanFilter(schema, a.get("expression"));
    Types.StructType struct = schema.asStruct();
    ArrayNode rows = NODES.arrayNode();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table)
        .useSnapshot(snapshotId).where(filter).build()) {
      for (Record rec : records) {
        // the columns of the snapshot's schema by name (a reader may add metadata columns such
        // as _pos to the record when it applies position deletes)
        ObjectNode row = NODES.objectNode();
        for (Types.NestedField f : struct.fields()) {
          row.set(f.name(), genericJson(f.type(), rec.getField(f.name())));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** The scan tasks of a snapshot for a filter: TableScan.useSnapshot(id).filter(...).planFiles(),
   * each data file's location with the locations of the delete files attached to it. */
  static JsonNode planFiles(JsonNode a) throws Exception {
    Table table = loadTable(a.get("metadata").asText());
    long snapshotId = a.get("snapshot_id").asLong();
    ArrayNode tasks = NODES.arrayNode();
    try (CloseableIterable<FileScanTask> planned = table.newScan()
        .useSnapshot(snapshotId)
        .filter(scanFilter(snapshotSchema(table, snapshotId), a.get("expression")))
        .planFiles()) {
      for (FileScanTask task : planned) {
        ObjectNode t = tasks.addObject();
        t.put("data_file", task.file().location());
        ArrayNode deletes = t.putArray("delete_files");
        for (DeleteFile d : task.deletes()) {
          deletes.add(d.location());
        }
      }
    }
    return tasks;
  }

  /** Tables by metadata file, its length and modification time (a metadata file is written once;
   * loading parses it and its snapshots). */
  static final Map<String, Table> TABLES = new java.util.LinkedHashMap<String, Table>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Table> eldest) {
      return size() > 32;
    }
  };

  static synchronized Table loadTable(String metadata) throws Exception {
    java.io.File file = new java.io.File(metadata.startsWith("file:") ? new java.net.URI(metadata).getPath() : metadata);
    String key = metadata + "|" + file.length() + "|" + file.lastModified();
    Table cached = TABLES.get(key);
    if (cached == null) {
      cached = loadTableUncached(metadata);
      TABLES.put(key, cached);
    }
    return cached;
  }

  static Table loadTableUncached(String metadata) throws Exception {
    Class<?> cls = Class.forName("org.apache.iceberg.hadoop.HadoopTables", true,
        ConformanceOracle.class.getClassLoader());
    Object tables = cls.getConstructor().newInstance();
    try {
      return (Table) cls.getMethod("load", String.class).invoke(tables, metadata);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
    }
  }

  /** A struct of the generic reader as JSON: top-level rows keyed by name, nested structs by
   * field id (Appendix D). */
  static ObjectNode structJson(Types.StructType struct, StructLike rec, boolean byId) throws Exception {
    ObjectNode out = NODES.objectNode();
    for (int i = 0; i < struct.fields().size(); i++) {
      Types.NestedField f = struct.fields().get(i);
      out.set(byId ? String.valueOf(f.fieldId()) : f.name(), genericJson(f.type(), rec.get(i, Object.class)));
    }
    return out;
  }

  private static String micros(java.time.LocalDateTime t, int digits) {
    String frac = String.format("%09d", t.getNano()).substring(0, digits);
    return String.format("%04d-%02d-%02dT%02d:%02d:%02d.%s", t.getYear(), t.getMonthValue(),
        t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), frac);
  }

  /** A value of Iceberg's generic data model (java.time, BigDecimal, ByteBuffer, byte[], UUID,
   * Record, List, Map) in the JSON single-value form the kit compares rows in. */
  static JsonNode genericJson(Type t, Object v) throws Exception {
    if (v == null) {
      return NODES.nullNode();
    }
    switch (t.typeId()) {
      case STRUCT:
        return structJson(t.asStructType(), (StructLike) v, true);
      case LIST:
        {
          ArrayNode arr = NODES.arrayNode();
          for (Object e : (java.util.List<?>) v) {
            arr.add(genericJson(t.asListType().elementType(), e));
          }
          return arr;
        }
      case MAP:
        {
          ObjectNode m = NODES.objectNode();
          ArrayNode keys = m.putArray("keys");
          ArrayNode values = m.putArray("values");
          for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
            keys.add(genericJson(t.asMapType().keyType(), e.getKey()));
            values.add(genericJson(t.asMapType().valueType(), e.getValue()));
          }
          return m;
        }
      case DATE:
        {
          java.time.LocalDate d = (java.time.LocalDate) v;
          return NODES.textNode(String.format("%04d-%02d-%02d", d.getYear(), d.getMonthValue(), d.getDayOfMonth()));
        }
      case TIME:
        {
          java.time.LocalTime tm = (java.time.LocalTime) v;
          return NODES.textNode(String.format("%02d:%02d:%02d.%06d", tm.getHour(), tm.getMinute(),
              tm.getSecond(), tm.getNano() / 1000));
        }
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        {
          int digits = t.typeId() == Type.TypeID.TIMESTAMP ? 6 : 9;
          if (v instanceof java.time.OffsetDateTime) {
            java.time.LocalDateTime utc = ((java.time.OffsetDateTime) v)
                .withOffsetSameInstant(java.time.ZoneOffset.UTC).toLocalDateTime();
            return NODES.textNode(micros(utc, digits) + "+00:00");
          }
          return NODES.textNode(micros((java.time.LocalDateTime) v, digits));
        }
      case DECIMAL:
        return NODES.textNode(((BigDecimal) v).toPlainString());
      case FIXED:
      case BINARY:
        {
          ByteBuffer buf = v instanceof byte[] ? ByteBuffer.wrap((byte[]) v) : (ByteBuffer) v;
          return NODES.textNode(hex(buf));
        }
      case UUID:
        return NODES.textNode(v.toString());
      case STRING:
        return NODES.textNode(v.toString());
      case FLOAT:
        return valueToJson(Types.DoubleType.get(), ((Float) v).doubleValue());
      default:
        return valueToJson(t, v);
    }
  }

  // --- data files with metrics ---------------------------------------------------------

  /** A data file of an unpartitioned table with the metrics of the case (maps keyed by field
   * id; bounds as hex of the binary single-value form, passed through unread). */
  static DataFile dataFile(JsonNode f) {
    long records = f.get("record_count").asLong();
    Metrics metrics = new Metrics(records, null, longs(f.get("value_counts")),
        longs(f.get("null_value_counts")), longs(f.get("nan_value_counts")),
        buffers(f.get("lower_bounds")), buffers(f.get("upper_bounds")));
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("/conformance/data.parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1024)
        .withMetrics(metrics)
        .build();
  }

  // --- delete planning: org.apache.iceberg.DeleteFileIndex (package-private, by reflection) ---

  static JsonNode deletePlanning(JsonNode a) throws Exception {
    Schema schema = SchemaParser.fromJson(a.get("schema"));
    Map<Integer, PartitionSpec> specs = new java.util.HashMap<>();
    for (JsonNode s : a.get("specs")) {
      PartitionSpec spec = PartitionSpecParser.fromJson(schema, s);
      specs.put(spec.specId(), spec);
    }
    java.util.List<DeleteFile> deletes = new java.util.ArrayList<>();
    for (JsonNode d : a.get("delete_files")) {
      PartitionSpec spec = specs.get(d.get("spec_id").asInt());
      FileMetadata.Builder b = FileMetadata.deleteFileBuilder(spec);
      if (d.get("content").asInt() == 2) {
        int[] ids = new int[d.get("equality_ids").size()];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = d.get("equality_ids").get(i).asInt();
        }
        b.ofEqualityDeletes(ids);
      } else {
        b.ofPositionDeletes();
      }
      b.withPath(d.get("file_path").asText()).withFormat(d.get("file_format").asText())
          .withFileSizeInBytes(1024).withRecordCount(1);
      if (spec.isPartitioned()) {
        b.withPartition(row(spec.partitionType(), d.get("partition")));
      }
      if (d.has("referenced_data_file")) {
        b.withReferencedDataFile(d.get("referenced_data_file").asText());
      }
      if (d.has("content_offset")) {
        b.withContentOffset(d.get("content_offset").asLong()).withContentSizeInBytes(d.get("content_size_in_bytes").asLong());
      }
      DeleteFile file = b.build();
      invoke(file, "setDataSequenceNumber", new Class<?>[] {Long.class}, d.get("data_sequence_number").asLong());
      if (d.has("file_sequence_number")) {
        invoke(file, "setFileSequenceNumber", new Class<?>[] {Long.class}, d.get("file_sequence_number").asLong());
      }
      if (d.has("sort_order_id")) {
        // a manifest read sets the field as it is stored (BaseFile.internalSet); the builder
        // would refuse it for position deletes, a writer's rule
        setField(file, "sortOrderId", d.get("sort_order_id").asInt());
      }
      deletes.add(file);
    }
    JsonNode df = a.get("data_file");
    PartitionSpec dataSpec = specs.get(df.get("spec_id").asInt());
    DataFiles.Builder db = DataFiles.builder(dataSpec).withPath(df.get("file_path").asText())
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(1024).withRecordCount(1);
    if (dataSpec.isPartitioned()) {
      db.withPartition(row(dataSpec.partitionType(), df.get("partition")));
    }
    DataFile data = db.build();
    // the sequence numbers a manifest entry gives the data file; Java plans with the file's own
    // (DeleteFileIndex.forDataFile(DataFile) reads its data sequence number)
    invoke(data, "setDataSequenceNumber", new Class<?>[] {Long.class}, df.get("data_sequence_number").asLong());
    if (df.has("file_sequence_number")) {
      invoke(data, "setFileSequenceNumber", new Class<?>[] {Long.class}, df.get("file_sequence_number").asLong());
    }
    Class<?> index = Class.forName("org.apache.iceberg.DeleteFileIndex");
    Method builderFor = index.getDeclaredMethod("builderFor", Iterable.class);
    builderFor.setAccessible(true);
    Object builder = builderFor.invoke(null, deletes);
    builder = invoke(builder, "specsById", new Class<?>[] {Map.class}, specs);
    Object built = invoke(builder, "build", new Class<?>[] {});
    DeleteFile[] found = (DeleteFile[]) invoke(built, "forDataFile", new Class<?>[] {DataFile.class}, data);
    java.util.List<String> paths = new java.util.ArrayList<>();
    for (DeleteFile f : found) {
      paths.add(f.location());
    }
    java.util.Collections.sort(paths);
    ArrayNode out = NODES.arrayNode();
    paths.forEach(out::add);
    return out;
  }

  /** Set a (possibly private) field declared by the object's class or a superclass. */
  private static void setField(Object target, String name, Object value) throws Exception {
    for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
      try {
        java.lang.reflect.Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
        return;
      } catch (NoSuchFieldException e) {
        // look in the superclass
      }
    }
    throw new Unsupported("no field " + name + " on " + target.getClass().getName());
  }

  /** Call a (possibly non-public) method declared by the object's class or a superclass. */
  private static Object invoke(Object target, String name, Class<?>[] types, Object... args) throws Exception {
    for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
      try {
        Method m = c.getDeclaredMethod(name, types);
        m.setAccessible(true);
        try {
          return m.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
          Throwable cause = e.getCause();   // Iceberg's own exception, judged as if called directly
          throw cause instanceof Exception ? (Exception) cause : e;
        }
      } catch (NoSuchMethodException e) {
        // look in the superclass
      }
    }
    throw new Unsupported("no method " + name + " on " + target.getClass().getName());
  }

  /** A data manifest of ``spec`` whose manifest-list entry has the case's field summaries. */
  static ManifestFile manifest(PartitionSpec spec, JsonNode partitions) {
    java.util.List<ManifestFile.PartitionFieldSummary> summaries = new java.util.ArrayList<>();
    for (JsonNode p : partitions) {
      summaries.add(summary(p));
    }
    return new ManifestFile() {
      public String path() { return "/conformance/manifest.avro"; }
      public long length() { return 1024; }
      public int partitionSpecId() { return spec.specId(); }
      public ManifestContent content() { return ManifestContent.DATA; }
      public long sequenceNumber() { return 1; }
      public long minSequenceNumber() { return 1; }
      public Long snapshotId() { return 1L; }
      public Integer addedFilesCount() { return 1; }
      public Long addedRowsCount() { return 10L; }
      public Integer existingFilesCount() { return 0; }
      public Long existingRowsCount() { return 0L; }
      public Integer deletedFilesCount() { return 0; }
      public Long deletedRowsCount() { return 0L; }
      public java.util.List<PartitionFieldSummary> partitions() { return summaries; }
      public ManifestFile copy() { return this; }
    };
  }

  private static ManifestFile.PartitionFieldSummary summary(JsonNode p) {
    ByteBuffer lower = bound(p.get("lower_bound"));
    ByteBuffer upper = bound(p.get("upper_bound"));
    Boolean nan = p.has("contains_nan") ? p.get("contains_nan").asBoolean() : null;
    boolean nulls = p.get("contains_null").asBoolean();
    return new ManifestFile.PartitionFieldSummary() {
      public boolean containsNull() { return nulls; }
      public Boolean containsNaN() { return nan; }
      public ByteBuffer lowerBound() { return lower == null ? null : lower.duplicate(); }
      public ByteBuffer upperBound() { return upper == null ? null : upper.duplicate(); }
      public ManifestFile.PartitionFieldSummary copy() { return this; }
    };
  }

  private static ByteBuffer bound(JsonNode hex) {
    return hex == null || hex.isNull() ? null : ByteBuffer.wrap(unhex(hex.asText())).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static Map<Integer, Long> longs(JsonNode node) {
    return byFieldId(node, JsonNode::asLong);
  }

  private static Map<Integer, ByteBuffer> buffers(JsonNode node) {
    return byFieldId(node,
        ConformanceOracle::bound);
  }

  /** A JSON object keyed by field id as a map, or null for an absent metric. */
  private static <V> Map<Integer, V> byFieldId(JsonNode node, java.util.function.Function<JsonNode, V> read) {
    if (node == null || node.isNull()) {
      return null;
    }
    Map<Integer, V> out = new java.util.HashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = node.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(Integer.parseInt(e.getKey()), read.apply(e.getValue()));
    }
    return out;
  }

  // --- types ---------------------------------------------------------------------------

  static Type parseType(JsonNode node) {
    if (node == null || node.isNull()) {
      throw new IllegalArgumentException("missing type");
    }
    // Parse the type as the only field of a schema (Java's own type-JSON reader, which also
    // knows the non-primitive leaf types such as variant), with an id none of its own uses.
    int id = maxId(node) + 1;
    ObjectNode field = NODES.objectNode();
    field.put("id", id);
    field.put("name", "v");
    field.put("required", false);
    field.set("type", node);
    ObjectNode schema = NODES.objectNode();
    schema.put("type", "struct");
    schema.put("schema-id", 0);
    ArrayNode fields = schema.putArray("fields");
    fields.add(field);
    return SchemaParser.fromJson(schema).findField(id).type();
  }

  private static int maxId(JsonNode node) {
    int max = 0;
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        String k = e.getKey();
        if ((k.equals("id") || k.equals("element-id") || k.equals("key-id") || k.equals("value-id"))
            && e.getValue().canConvertToInt()) {
          max = Math.max(max, e.getValue().asInt());
        }
        max = Math.max(max, maxId(e.getValue()));
      }
    } else if (node.isArray()) {
      for (JsonNode c : node) {
        max = Math.max(max, maxId(c));
      }
    }
    return max;
  }

  static JsonNode typeToJson(Type t) throws Exception {
    if (t.isPrimitiveType()) {
      return NODES.textNode(t.toString());
    }
    Schema schema = new Schema(Types.NestedField.optional(Integer.MAX_VALUE, "v", t));
    JsonNode s = MAPPER.readTree(SchemaParser.toJson(schema));
    return s.get("fields").get(0).get("type");
  }

  // --- values --------------------------------------------------------------------------

  static Object value(Type t, JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (node.isTextual()
        && (t.typeId() == Type.TypeID.FLOAT || t.typeId() == Type.TypeID.DOUBLE)) {
      // JSON has no literal for these; the kit passes them as strings.
      String s = node.asText();
      double d;
      if (s.equals("NaN")) {
        d = Double.NaN;
      } else if (s.equals("Infinity")) {
        d = Double.POSITIVE_INFINITY;
      } else if (s.equals("-Infinity")) {
        d = Double.NEGATIVE_INFINITY;
      } else {
        return SingleValueParser.fromJson(t, node);
      }
      return t.typeId() == Type.TypeID.FLOAT ? (Object) (float) d : (Object) d;
    }
    return SingleValueParser.fromJson(t, node);
  }

  static JsonNode valueToJson(Type t, Object v) throws Exception {
    if (v == null) {
      return NODES.nullNode();
    }
    if (v instanceof Float || v instanceof Double) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d)) {
        return NODES.textNode("NaN");
      } else if (Double.isInfinite(d)) {
        return NODES.textNode(d > 0 ? "Infinity" : "-Infinity");
      }
    }
    return MAPPER.readTree(SingleValueParser.toJson(t, v));
  }

  // --- rows ----------------------------------------------------------------------------

  /** A row of a struct type from its JSON single-value form (an object keyed by field id). */
  static final class Row implements StructLike {
    private final Object[] values;

    Row(int size) {
      values = new Object[size];
    }

    @Override
    public int size() {
      return values.length;
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
      return javaClass.cast(values[pos]);
    }

    @Override
    public <T> void set(int pos, T value) {
      values[pos] = value;
    }
  }

  static Row row(Types.StructType struct, JsonNode node) {
    Row out = new Row(struct.fields().size());
    for (int i = 0; i < struct.fields().size(); i++) {
      Types.NestedField f = struct.fields().get(i);
      JsonNode v = node == null ? null : node.get(String.valueOf(f.fieldId()));
      if (v == null || v.isNull()) {
        continue;
      }
      if (f.type().typeId() == Type.TypeID.DATE && v.isIntegralNumber()) {
        out.set(i, v.asInt());   // a day partition value: the table spec's int (days from 1970-01-01)
      } else {
        out.set(i, f.type().isStructType() ? row(f.type().asStructType(), v) : value(f.type(), v));
      }
    }
    return out;
  }

  // --- hashing and transforms ----------------------------------------------------------

  static int hash(Type t, JsonNode node) throws Exception {
    Object v = value(t, node);
    switch (t.typeId()) {
      case FLOAT:
        return BucketUtil.hash((Float) v);
      case DOUBLE:
        return BucketUtil.hash((Double) v);
      case BOOLEAN:
        throw new Unsupported("Iceberg Java has no hash for boolean (its bucket transform refuses it)");
      case UNKNOWN:
        throw new Unsupported("Iceberg Java has no hash for unknown (its bucket transform refuses it)");
      default:
        break;
    }
    // The bucket transform's own hash for this type (what Java writes partitions with).
    Transform<Object, Integer> bucket = Transforms.bucket(t, Integer.MAX_VALUE);
    if (!bucket.canTransform(t)) {
      throw new Unsupported("Iceberg Java's bucket transform does not hash " + t);
    }
    Method m = findHash(bucket.getClass());
    m.setAccessible(true);
    return (Integer) m.invoke(bucket, v);
  }

  private static Method findHash(Class<?> cls) throws NoSuchMethodException {
    for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.getName().equals("hash") && m.getParameterCount() == 1
            && m.getReturnType() == int.class) {
          // prefer the most specific override: the first found walking up from the subclass
          if (!m.isBridge()) {
            return m;
          }
        }
      }
    }
    throw new NoSuchMethodException("hash on " + cls);
  }

  @SuppressWarnings("unchecked")
  static Transform<Object, Object> boundTransform(String name, Type t) {
    Transform<Object, Object> tr = (Transform<Object, Object>) Transforms.fromString(t, name);
    if (!tr.canTransform(t)) {
      throw new IllegalArgumentException("Cannot apply " + name + " to " + t);
    }
    return tr;
  }

  static JsonNode transform(String name, Type t, JsonNode node) throws Exception {
    Transform<Object, Object> tr = boundTransform(name, t);
    Object v = value(t, node);
    Object r = tr.bind(t).apply(v);
    Type rt = tr.getResultType(t);
    ObjectNode out = NODES.objectNode();
    out.set("value", valueToJson(rt, r));
    out.set("result_type", typeToJson(rt));
    // the raw ordinal for temporal results, whatever type Java declares for them
    if (r instanceof Integer) {
      out.put("ordinal", (Integer) r);
    }
    return out;
  }

  // --- bytes ---------------------------------------------------------------------------

  static String hex(ByteBuffer buf) {
    ByteBuffer b = buf.duplicate();
    StringBuilder sb = new StringBuilder();
    while (b.hasRemaining()) {
      sb.append(String.format("%02x", b.get() & 0xff));
    }
    return sb.toString();
  }

  static byte[] unhex(String s) {
    if (s.length() % 2 != 0) {
      throw new IllegalArgumentException("odd-length hex string");
    }
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }
}
