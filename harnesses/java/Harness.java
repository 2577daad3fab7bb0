// Iceberg Java behind the harness protocol (docs/harness-protocol.md): a plain JVM that reads one
// JSON request per line on stdin and writes one JSON reply per line on stdout.
//
// Classpath: the Iceberg runtime jar (it carries a shaded Jackson, used here for JSON) and Hadoop's
// jars. Compiled at first use by iceberg_conformance.harnesses.java; run it by hand with
//   javac -cp RUNTIME.jar -d out Harness.java && java -cp RUNTIME.jar:out Harness
//
// How Iceberg Java's answers map onto replies:
//   a value                               -> {"id": n, "result": ...}
//   IllegalArgumentException, ValidationException, UnsupportedOperationException,
//   DateTimeException, IllegalStateException, UncheckedIOException (Iceberg's RuntimeIOException:
//   a file or value that does not parse), ArithmeticException (a lossy decimal scale change)
//                                         -> {"id": n, "refused": "<class>: <message>"}
//   an input Java has no operation for    -> {"id": n, "unsupported": "..."}
//   any other Throwable                   -> {"id": n, "error": "<class>: <message>"}
//
// A template for another JVM implementation: replace the bodies of the operations below.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.util.Iterator;
import java.util.Map;
import org.apache.iceberg.IcebergBuild;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.ValidationException;
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

public final class Harness {
  static final int PROTOCOL = 1;
  static final ObjectMapper JSON = JsonUtil.mapper();
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /** What this harness implements: the capability names of the protocol. */
  static final String[] CAPABILITIES = {
    "hash", "transform", "binary", "value-json", "schema-json", "partition-spec-json", "metadata"
  };

  /** An input Iceberg Java has no operation for: an "unsupported" reply. */
  static final class Unsupported extends RuntimeException {
    Unsupported(String message) {
      super(message);
    }
  }

  public static void main(String[] args) throws Exception {
    // stdout carries the protocol only: anything a library prints goes to stderr
    PrintStream protocol = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode request = JSON.readTree(line);
      String op = request.path("op").asText();
      if (op.equals("stop")) {
        return;
      }
      ObjectNode reply = op.equals("start") ? start(request) : answer(op, request);
      protocol.println(JSON.writeValueAsString(reply));
    }
  }

  static ObjectNode start(JsonNode request) {
    ObjectNode reply = NODES.objectNode();
    reply.set("id", request.get("id"));
    reply.put("protocol", PROTOCOL);
    reply.put("implementation", "iceberg-java");
    reply.put("language", "java");
    reply.put("version", IcebergBuild.version() + " (Java " + System.getProperty("java.version") + ")");
    ArrayNode caps = reply.putArray("capabilities");
    for (String c : CAPABILITIES) {
      caps.add(c);
    }
    return reply;
  }

  static ObjectNode answer(String op, JsonNode r) {
    ObjectNode reply = NODES.objectNode();
    reply.set("id", r.get("id"));
    try {
      reply.set("result", dispatch(op, r));
    } catch (Unsupported e) {
      reply.put("unsupported", e.getMessage());
    } catch (IllegalArgumentException | ValidationException | UnsupportedOperationException
        | DateTimeException | IllegalStateException | UncheckedIOException | ArithmeticException e) {
      if (isGeo(r.get("type")) && e instanceof UnsupportedOperationException) {
        // Iceberg Java has no single values of geometry/geography at all: not a refusal
        reply.put("unsupported", "Iceberg Java has no " + r.get("type").asText() + " single values: " + describe(e));
      } else {
        reply.put("refused", describe(e));
      }
    } catch (Throwable e) {
      reply.put("error", describe(e));
    }
    return reply;
  }

  static String describe(Throwable e) {
    String msg = e.getMessage();
    Throwable cause = e.getCause();
    if (cause != null && cause.getMessage() != null && (msg == null || !msg.contains(cause.getMessage()))) {
      msg = (msg == null ? "" : msg + ": ") + cause.getMessage();
    }
    return e.getClass().getName() + ": " + (msg == null ? e.toString() : msg);
  }

  static boolean isGeo(JsonNode type) {
    if (type == null || !type.isTextual()) {
      return false;
    }
    String name = type.asText().split("\\(")[0].trim();
    return name.equals("geometry") || name.equals("geography");
  }

  static JsonNode dispatch(String op, JsonNode r) throws Exception {
    switch (op) {
      case "hash":
        return NODES.numberNode(hash(type(r.get("type")), r.get("value")));
      case "transform":
        return transform(r.get("transform").asText(), type(r.get("type")), r.get("value"));
      case "result_type":
        {
          Type t = type(r.get("type"));
          return typeJson(transformOf(r.get("transform").asText(), t).getResultType(t));
        }
      case "to_bytes":
        {
          Type t = type(r.get("type"));
          return NODES.textNode(hex(Conversions.toByteBuffer(t, value(t, r.get("value")))));
        }
      case "from_bytes":
        {
          Type t = type(r.get("type"));
          ByteBuffer buf = ByteBuffer.wrap(unhex(r.get("data").asText())).order(ByteOrder.LITTLE_ENDIAN);
          return valueJson(t, Conversions.fromByteBuffer(t, buf));
        }
      case "value_json_roundtrip":
        {
          Type t = type(r.get("type"));
          return valueJson(t, value(t, r.get("value")));
        }
      case "type_json_roundtrip":
        return typeJson(type(r.get("type")));
      case "schema_json_roundtrip":
        {
          Schema schema = SchemaParser.fromJson(r.get("schema"));
          Schema.checkCompatibility(schema, r.get("format_version").asInt());
          return JSON.readTree(SchemaParser.toJson(schema));
        }
      case "partition_spec_json_roundtrip":
        {
          Schema schema = SchemaParser.fromJson(r.get("schema"));
          PartitionSpec spec = PartitionSpecParser.fromJson(schema, r.get("spec"));
          return JSON.readTree(PartitionSpecParser.toJson(spec));
        }
      case "read_table_metadata":
        return JSON.readTree(TableMetadataParser.toJson(readMetadata(r.get("path").asText())));
      case "read_table_metadata_as":
        {
          // as a reader of a later format version holds it: upgraded in place
          TableMetadata md = readMetadata(r.get("path").asText());
          int version = r.get("format_version").asInt();
          if (md.formatVersion() < version) {
            md = TableMetadata.buildFrom(md).upgradeFormatVersion(version).build();
          }
          return JSON.readTree(TableMetadataParser.toJson(md));
        }
      default:
        throw new Unsupported("this harness does not implement " + op);
    }
  }

  static TableMetadata readMetadata(String path) {
    return TableMetadataParser.read(org.apache.iceberg.Files.localInput(new java.io.File(path).getAbsolutePath()));
  }

  // --- types: Iceberg's own JSON reader, the type as the one field of a schema ---------------

  static Type type(JsonNode node) {
    if (node == null || node.isNull()) {
      throw new IllegalArgumentException("missing type");
    }
    int id = largestId(node) + 1;
    ObjectNode field = NODES.objectNode().put("id", id).put("name", "v").put("required", false);
    field.set("type", node);
    ObjectNode schema = NODES.objectNode().put("type", "struct").put("schema-id", 0);
    schema.putArray("fields").add(field);
    return SchemaParser.fromJson(schema).findField(id).type();
  }

  static int largestId(JsonNode node) {
    int max = 0;
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getKey().matches("id|element-id|key-id|value-id") && e.getValue().canConvertToInt()) {
          max = Math.max(max, e.getValue().asInt());
        }
        max = Math.max(max, largestId(e.getValue()));
      }
    } else if (node.isArray()) {
      for (JsonNode c : node) {
        max = Math.max(max, largestId(c));
      }
    }
    return max;
  }

  static JsonNode typeJson(Type t) throws Exception {
    if (t.isPrimitiveType()) {
      return NODES.textNode(t.toString());
    }
    Schema schema = new Schema(Types.NestedField.optional(Integer.MAX_VALUE, "v", t));
    return JSON.readTree(SchemaParser.toJson(schema)).get("fields").get(0).get("type");
  }

  // --- values: SingleValueParser, with NaN and the infinities as the protocol's strings -------

  static Object value(Type t, JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    boolean floating = t.typeId() == Type.TypeID.FLOAT || t.typeId() == Type.TypeID.DOUBLE;
    if (floating && node.isTextual() && node.asText().matches("NaN|-?Infinity")) {
      double d = node.asText().equals("NaN") ? Double.NaN
          : node.asText().startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
      return t.typeId() == Type.TypeID.FLOAT ? (Object) (float) d : (Object) d;
    }
    return SingleValueParser.fromJson(t, node);
  }

  static JsonNode valueJson(Type t, Object v) throws Exception {
    if (v == null) {
      return NODES.nullNode();
    }
    if (v instanceof Float || v instanceof Double) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d)) {
        return NODES.textNode("NaN");
      }
      if (Double.isInfinite(d)) {
        return NODES.textNode(d > 0 ? "Infinity" : "-Infinity");
      }
    }
    return JSON.readTree(SingleValueParser.toJson(t, v));
  }

  // --- hashing and transforms -------------------------------------------------------------

  /** The hash Iceberg Java writes bucket partitions with: its bucket transform's own. */
  static int hash(Type t, JsonNode node) throws Exception {
    Object v = value(t, node);
    switch (t.typeId()) {
      case FLOAT:
        return BucketUtil.hash((Float) v);
      case DOUBLE:
        return BucketUtil.hash((Double) v);
      case BOOLEAN:
      case UNKNOWN:
        throw new Unsupported("Iceberg Java has no hash for " + t + " (its bucket transform refuses it)");
      default:
        break;
    }
    Transform<Object, Integer> bucket = Transforms.bucket(t, Integer.MAX_VALUE);
    if (!bucket.canTransform(t)) {
      throw new Unsupported("Iceberg Java's bucket transform does not hash " + t);
    }
    Method m = hashMethod(bucket.getClass());
    m.setAccessible(true);
    return (Integer) m.invoke(bucket, v);
  }

  static Method hashMethod(Class<?> cls) throws NoSuchMethodException {
    for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.getName().equals("hash") && m.getParameterCount() == 1 && m.getReturnType() == int.class
            && !m.isBridge()) {
          return m;
        }
      }
    }
    throw new NoSuchMethodException("hash on " + cls);
  }

  @SuppressWarnings("unchecked")
  static Transform<Object, Object> transformOf(String name, Type t) {
    Transform<Object, Object> tr = (Transform<Object, Object>) Transforms.fromString(t, name);
    if (!tr.canTransform(t)) {
      throw new IllegalArgumentException("Cannot apply " + name + " to " + t);
    }
    return tr;
  }

  static JsonNode transform(String name, Type t, JsonNode node) throws Exception {
    Transform<Object, Object> tr = transformOf(name, t);
    Object result = tr.bind(t).apply(value(t, node));
    Type resultType = tr.getResultType(t);
    if (result instanceof Integer && name.equals("day") && resultType.typeId() == Type.TypeID.DATE) {
      // Java declares date as day's result type; the spec's result is the int day ordinal
      return NODES.numberNode((Integer) result);
    }
    return valueJson(resultType, result);
  }

  // --- bytes ------------------------------------------------------------------------------

  static String hex(ByteBuffer buf) {
    ByteBuffer b = buf.duplicate();
    StringBuilder sb = new StringBuilder();
    while (b.hasRemaining()) {
      sb.append(String.format("%02x", b.get() & 0xff));
    }
    return sb.toString();
  }

  static byte[] unhex(String s) {
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }
}
