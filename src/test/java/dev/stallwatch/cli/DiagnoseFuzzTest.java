package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.stallwatch.app.ExitCodes;
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
 * negative or absurd, kinds swapped, text cut off mid-document, arbitrary bytes — as JSON and YAML.
 * Whatever comes in, diagnose exits 0, 1 or 2 and never prints a stack trace.
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
  void diagnose_never_prints_a_stack_trace(RepetitionInfo info) {
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
    }
    if (!json) {
      assertThat(out.toString().lines()).allMatch(l -> l.length() <= 100);
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
