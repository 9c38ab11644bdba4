package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.stallwatch.main.StallwatchCommand;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import picocli.CommandLine;

/**
 * Feeds {@code diagnose} kubectl dumps broken at random — fields removed, of the wrong type,
 * negative or absurd, kinds swapped, text cut off mid-document, arbitrary bytes — as JSON and YAML;
 * and, aimed, Events (FailedCreate and look-alikes with garbage subjects, times and counts),
 * apiVersions, numbers (1.5, 1e30, -1, huge, strings, null) and annotations (the template
 * generation, huge values). Whatever comes in, diagnose exits 0, 1 or 2, never prints a stack
 * trace, exits 2 whenever it names an error, and never says Complete without Full evidence unless
 * the DaemonSet's {@code .status} itself says complete.
 */
class DiagnoseFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new YAMLMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final JsonNode SEED = load("/kube/dumps/imagepull-stalled.json");

  /** Fields the mapping and the analyzer read: most mutations aim there. */
  private static final List<String> READ_FIELDS =
      List.of(
          "kind",
          "apiVersion",
          "metadata",
          "spec",
          "status",
          "data",
          "revision",
          "metadata/name",
          "metadata/namespace",
          "metadata/uid",
          "metadata/creationTimestamp",
          "metadata/deletionTimestamp",
          "metadata/labels",
          "metadata/annotations",
          "metadata/ownerReferences",
          "metadata/ownerReferences/0/controller",
          "metadata/ownerReferences/0/uid",
          "metadata/generation",
          "metadata/labels/controller-revision-hash",
          "metadata/annotations/deprecated.daemonset.template.generation",
          "spec/updateStrategy",
          "spec/updateStrategy/type",
          "spec/updateStrategy/rollingUpdate",
          "spec/updateStrategy/rollingUpdate/maxUnavailable",
          "spec/updateStrategy/rollingUpdate/maxSurge",
          "spec/minReadySeconds",
          "spec/template",
          "spec/template/spec/containers",
          "spec/template/spec/containers/0/image",
          "spec/template/spec/nodeSelector",
          "spec/template/spec/tolerations",
          "spec/template/spec/tolerations/0/operator",
          "spec/nodeName",
          "spec/affinity",
          "spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution",
          "spec/taints",
          "spec/unschedulable",
          "spec/containers/0/resources",
          "status/phase",
          "status/conditions",
          "status/conditions/0/status",
          "status/conditions/3/lastTransitionTime",
          "status/containerStatuses",
          "status/containerStatuses/0/state",
          "status/containerStatuses/0/state/waiting/reason",
          "status/initContainerStatuses/0/state/terminated/exitCode",
          "status/observedGeneration",
          "status/desiredNumberScheduled",
          "status/numberReady",
          "data/spec/template",
          "data/spec/template/spec");

  @RepeatedTest(300)
  void diagnose_never_prints_a_stack_trace(RepetitionInfo info) throws IOException {
    Random random = new Random(info.getCurrentRepetition() * 104_729L);
    String dump = brokenDump(random);
    boolean json = random.nextBoolean();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = StallwatchCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    InputStream original = System.in;
    System.setIn(new ByteArrayInputStream(dump.getBytes(StandardCharsets.UTF_8)));
    int code;
    try {
      code =
          cli.execute(
              "diagnose",
              "-f",
              "-",
              "--now",
              "2026-12-02T16:12:00Z",
              "-o",
              json ? "json" : "table");
    } finally {
      System.setIn(original);
    }

    assertThat(code).isIn(ExitCodes.OK, ExitCodes.STALLED, ExitCodes.USAGE);
    assertThat(err.toString())
        .doesNotContain("Exception")
        .doesNotContain("\tat ")
        .doesNotContain("at dev.")
        .doesNotContain("at java.");
    if (code != ExitCodes.USAGE) {
      assertThat(err.toString()).doesNotContain("error:");
    }
    if (json && !out.toString().isEmpty()) {
      assertThat(parses(out.toString())).as("stdout is JSON: %s", out).isTrue();
      assertNoFalseComplete(out.toString());
    }
    if (!json) {
      assertThat(out.toString().lines()).allMatch(l -> l.length() <= 100);
    }
  }

  /**
   * The seed dump with Events added and then aimed mutations of Events, apiVersions, numbers and
   * annotations; always JSON output, so that the verdicts can be checked.
   */
  @RepeatedTest(200)
  void aimedMutationsNeverYieldATraceAnErrorExitOtherThanTwoOrAFalseComplete(RepetitionInfo info)
      throws IOException {
    Random random = new Random(info.getCurrentRepetition() * 15_485_863L);
    JsonNode tree = SEED.deepCopy();
    ArrayNode items = (ArrayNode) tree.get("items");
    for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
      items.add(AimedMutations.event(random));
    }
    for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
      AimedMutations.mutate(items, random);
    }
    String dump =
        random.nextBoolean() ? JSON.writeValueAsString(tree) : YAML.writeValueAsString(tree);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = diagnose(dump, "json", out, err);

    assertThat(code).isIn(ExitCodes.OK, ExitCodes.STALLED, ExitCodes.USAGE);
    assertThat(err.toString())
        .doesNotContain("Exception")
        .doesNotContain("\tat ")
        .doesNotContain("at dev.")
        .doesNotContain("at java.");
    if (err.toString().contains("error:")) {
      assertThat(code).as("an error is exit 2: %s", err).isEqualTo(ExitCodes.USAGE);
    }
    if (out.toString().isEmpty()) {
      assertThat(code).isEqualTo(ExitCodes.USAGE);
      return;
    }
    assertNoFalseComplete(out.toString());
    JsonNode report = JSON.readTree(out.toString());
    for (JsonNode verdict : report.get("daemonSets")) {
      if (verdict.get("phase").asText().equals("Stalled") && code != ExitCodes.USAGE) {
        assertThat(code).isEqualTo(ExitCodes.STALLED);
      }
    }
  }

  /** Never Complete without Full evidence unless .status itself says complete. */
  private static void assertNoFalseComplete(String json) throws IOException {
    for (JsonNode verdict : JSON.readTree(json).get("daemonSets")) {
      if (verdict.get("phase").asText().equals("Complete")
          && !verdict.get("evidence").asText().equals("Full")) {
        assertThat(statusSaysComplete(verdict))
            .as(
                "Complete on %s evidence without .status saying so: %s",
                verdict.get("evidence"), verdict)
            .isTrue();
      }
    }
  }

  /** What {@code .status} says of itself, as the JSON report repeats it. */
  private static boolean statusSaysComplete(JsonNode verdict) {
    JsonNode r = verdict.get("reported");
    if (r == null || r.isNull() || verdict.get("observedGeneration").isNull()) {
      return false;
    }
    int desired = r.get("desired").asInt();
    return verdict.get("observedGeneration").asLong() >= verdict.get("generation").asLong()
        && r.get("current").asInt() == desired
        && r.get("ready").asInt() == desired
        && r.get("upToDate").asInt() == desired
        && r.get("available").asInt() == desired
        && r.get("misscheduled").asInt() == 0;
  }

  private static int diagnose(String dump, String format, StringWriter out, StringWriter err) {
    CommandLine cli = StallwatchCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    InputStream original = System.in;
    System.setIn(new ByteArrayInputStream(dump.getBytes(StandardCharsets.UTF_8)));
    try {
      return cli.execute("diagnose", "-f", "-", "--now", "2026-12-02T16:12:00Z", "-o", format);
    } finally {
      System.setIn(original);
    }
  }

  /** Mostly a kubectl dump with a few mutations; sometimes text that is no dump at all. */
  static String brokenDump(Random random) {
    int kind = random.nextInt(10);
    if (kind == 0) {
      return randomText(random, null);
    }
    if (kind == 1) {
      return randomText(random, "{}[]:,\"-\n #&*!|>'abc0123456789kindList");
    }
    return mutatedDump(random);
  }

  private static String randomText(Random random, String alphabet) {
    StringBuilder text = new StringBuilder();
    int length = random.nextInt(300);
    for (int i = 0; i < length; i++) {
      text.append(
          alphabet == null
              ? (char) (random.nextInt(0xD7FF) + 1)
              : alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return text.toString();
  }

  static String mutatedDump(Random random) {
    JsonNode tree = SEED.deepCopy();
    int mutations = 1 + random.nextInt(6);
    for (int i = 0; i < mutations; i++) {
      mutate(tree, random);
    }
    String text;
    try {
      text = random.nextBoolean() ? JSON.writeValueAsString(tree) : YAML.writeValueAsString(tree);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (random.nextInt(8) == 0) {
      text = text.substring(0, random.nextInt(text.length()));
    }
    return text;
  }

  private static void mutate(JsonNode root, Random random) {
    JsonNode items = root.get("items");
    JsonNode parent;
    String key;
    if (random.nextInt(4) > 0 && items.size() > 0) {
      JsonNode item = items.get(random.nextInt(items.size()));
      String path = READ_FIELDS.get(random.nextInt(READ_FIELDS.size()));
      int slash = path.lastIndexOf('/');
      parent = slash < 0 ? item : item.at("/" + path.substring(0, slash));
      key = path.substring(slash + 1);
    } else {
      List<JsonNode> containers = new ArrayList<>();
      collect(root, containers);
      parent = containers.get(random.nextInt(containers.size()));
      key = parent.isObject() && parent.size() > 0 ? nthField(parent, random) : "0";
    }
    JsonNode value = randomValue(root, random);
    if (parent instanceof ObjectNode obj) {
      if (value == null) {
        obj.remove(key);
      } else {
        obj.set(key, value);
      }
    } else if (parent instanceof ArrayNode arr && arr.size() > 0) {
      int index = key.chars().allMatch(Character::isDigit) ? Integer.parseInt(key) : 0;
      index = Math.min(index, arr.size() - 1);
      if (value == null) {
        arr.remove(index);
      } else {
        arr.set(index, value);
      }
    }
  }

  /** A replacement value; null means "remove the field". */
  private static JsonNode randomValue(JsonNode root, Random random) {
    return switch (random.nextInt(14)) {
      case 0 -> null;
      case 1 -> NODES.textNode("abc");
      case 2 -> NODES.textNode("");
      case 3 -> NODES.numberNode(-1);
      case 4 -> NODES.numberNode(0);
      case 5 -> NODES.numberNode(1e30);
      case 6 -> NODES.booleanNode(random.nextBoolean());
      case 7 -> NODES.nullNode();
      case 8 -> NODES.objectNode();
      case 9 -> NODES.arrayNode();
      case 10 -> NODES.textNode("25%");
      case 11 -> NODES.textNode("2026-13-45T99:99:99Z");
      case 12 -> NODES.numberNode(Long.MAX_VALUE);
      default -> {
        List<JsonNode> all = new ArrayList<>();
        collect(root, all);
        yield all.get(random.nextInt(all.size())).deepCopy();
      }
    };
  }

  private static void collect(JsonNode node, List<JsonNode> into) {
    if (node.isContainerNode()) {
      into.add(node);
      node.forEach(child -> collect(child, into));
    }
  }

  private static String nthField(JsonNode obj, Random random) {
    List<String> names = new ArrayList<>();
    obj.fieldNames().forEachRemaining(names::add);
    return names.get(random.nextInt(names.size()));
  }

  private static boolean parses(String text) {
    try {
      JSON.readTree(text);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static JsonNode load(String resource) {
    try (InputStream in = DiagnoseFuzzTest.class.getResourceAsStream(resource)) {
      return JSON.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
