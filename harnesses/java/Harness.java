// Iceberg Java behind the harness protocol (docs/harness-protocol.md): a plain JVM that reads one
// JSON request per line on stdin and writes one JSON reply per line on stdout. No Spark, no py4j.
//
// The operations are those of the kit's Java helper (suites/spark/java/ConformanceOracle.java,
// the java target's door into Iceberg Java through Spark's JVM), called here in-process: the
// java target and this harness ask Iceberg Java the same questions, over two transports, so
// their outcomes must be identical (the harnesses lane compares them).
//
// Classpath: the Iceberg runtime jar (it carries a shaded Jackson, used here for JSON), Hadoop's
// jars, the helper's compiled jar and this class; suites/targets/subprocess/builtin.py compiles
// and runs it. A template for another JVM implementation: replace answer() with calls of your own.
//
// The helper's answers map onto replies:
//   {"ok": true, "value": V}                 -> {"id": n, "result": V}
//   {"kind": "rejected"} (Iceberg refused: IllegalArgumentException, ValidationException, ...)
//                                            -> {"id": n, "refused": "<class>: <message>"}
//   {"kind": "unsupported"}                  -> {"id": n, "unsupported": "..."}
//   {"kind": "crash"} (any other Throwable)  -> {"id": n, "error": "<class>: <message>"}

import icebergconformance.ConformanceOracle;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.iceberg.IcebergBuild;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.iceberg.shaded.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.iceberg.util.JsonUtil;

public final class Harness {
  static final int PROTOCOL = 1;
  static final ObjectMapper JSON = JsonUtil.mapper();
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /** What this harness implements: the capability names of the protocol. */
  static final String[] CAPABILITIES = {
    "hash", "transform", "binary", "value-json", "schema-json", "partition-spec-json", "metadata",
    "avro-schema", "delete-planning"
  };
  /** Protocol operation -> the helper's operation (the arguments have the same names). */
  static final Map<String, String> HELPER_OPS = Map.ofEntries(
      Map.entry("hash", "hash"),
      Map.entry("transform", "transform"),
      Map.entry("result_type", "result_type"),
      Map.entry("to_bytes", "to_bytes"),
      Map.entry("from_bytes", "from_bytes"),
      Map.entry("value_json_roundtrip", "value_json"),
      Map.entry("type_json_roundtrip", "type_json"),
      Map.entry("schema_json_roundtrip", "schema_json"),
      Map.entry("partition_spec_json_roundtrip", "partition_spec_json"),
      Map.entry("read_table_metadata", "table_metadata"),
      Map.entry("read_table_metadata_as", "table_metadata_as"),
      Map.entry("avro_schema", "avro_schema"),
      Map.entry("applicable_deletes", "delete_planning"));

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
      ObjectNode reply = op.equals("start") ? start(request) : answer(op, (ObjectNode) request);
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

  static ObjectNode answer(String op, ObjectNode request) throws Exception {
    ObjectNode reply = NODES.objectNode();
    reply.set("id", request.get("id"));
    String helperOp = HELPER_OPS.get(op);
    if (helperOp == null) {
      return reply.put("unsupported", "this harness does not implement " + op);
    }
    ObjectNode args = request.deepCopy();
    args.remove("op");
    args.remove("id");
    if (args.has("path")) {
      args.put("path", new File(args.get("path").asText()).getAbsolutePath());
    }
    JsonNode out = JSON.readTree(ConformanceOracle.call(helperOp, JSON.writeValueAsString(args)));
    if (out.path("ok").asBoolean()) {
      JsonNode value = out.get("value");
      if (op.equals("transform")) {
        // Java declares date as day's result type; the spec's result is the int day ordinal
        boolean dayOrdinal = request.get("transform").asText().equals("day")
            && value.path("result_type").asText().equals("date") && !value.get("value").isNull();
        value = dayOrdinal ? value.get("ordinal") : value.get("value");
      }
      return reply.set("result", value);
    }
    String kind = out.path("kind").asText();
    String text = out.path("class").asText() + ": " + out.path("message").asText();
    if (kind.equals("rejected") && isGeo(request.get("type")) && text.startsWith("java.lang.UnsupportedOperationException")) {
      // Iceberg Java has no geometry/geography single values at all: not a refusal of this value
      return reply.put("unsupported", "Iceberg Java has no " + request.get("type").asText() + " single values: " + text);
    }
    switch (kind) {
      case "rejected":
        return reply.put("refused", text);
      case "unsupported":
        return reply.put("unsupported", "Iceberg Java: " + out.path("message").asText());
      default:
        return reply.put("error", text);
    }
  }

  static boolean isGeo(JsonNode type) {
    if (type == null || !type.isTextual()) {
      return false;
    }
    String name = type.asText().split("\\(")[0].trim();
    return name.equals("geometry") || name.equals("geography");
  }
}
