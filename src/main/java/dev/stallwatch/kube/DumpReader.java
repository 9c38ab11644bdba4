package dev.stallwatch.kube;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads what {@code kubectl get daemonsets,pods,nodes,controllerrevisions,events -A -o json} (or
 * {@code -o yaml}) prints: a {@code List} (also typed lists like {@code PodList}, also nested),
 * single objects, concatenated JSON values and multi-document YAML. Objects of other kinds are
 * counted and skipped; a broken file or object becomes an error line and does not stop the rest.
 */
public final class DumpReader {

  /** The name standing for standard input, as kubectl's {@code -f -}. */
  public static final String STDIN = "-";

  private static final ObjectMapper YAML = yamlMapper();

  private final InputStream stdin;

  public DumpReader(InputStream stdin) {
    this.stdin = stdin;
  }

  /** Reads every file in order ({@code -} is standard input). */
  public Dump read(List<String> files) {
    Collector out = new Collector();
    for (String file : files) {
      String name = STDIN.equals(file) ? "<stdin>" : file;
      String text;
      try {
        text = STDIN.equals(file) ? decode(stdin.readAllBytes()) : readFile(Path.of(file));
      } catch (UnreadableException | IOException e) {
        out.errors.add(name + ": " + e.getMessage());
        continue;
      }
      if (text.isBlank()) {
        out.errors.add(name + ": is empty: no Kubernetes objects to read");
        continue;
      }
      readDocuments(name, text, out);
    }
    return new Dump(
        out.daemonSets,
        out.pods,
        out.nodes,
        out.revisions,
        out.ignored,
        out.errors,
        out.unreadableNodes,
        out.unsupported,
        out.events);
  }

  private static void readDocuments(String name, String text, Collector out) {
    boolean json = text.stripLeading().startsWith("{") || text.stripLeading().startsWith("[");
    ObjectMapper mapper = json ? KubeJson.MAPPER : YAML;
    List<JsonNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it = mapper.readerFor(JsonNode.class).readValues(text)) {
      while (it.hasNextValue()) {
        documents.add(it.nextValue());
      }
    } catch (IOException | RuntimeException e) {
      out.errors.add(name + ": not valid " + (json ? "JSON" : "YAML") + ": " + parseProblem(e));
      // The documents before the broken one are still worth reading.
    }
    int objects = 0;
    for (int i = 0; i < documents.size(); i++) {
      JsonNode doc = documents.get(i);
      if (doc == null
          || doc.isNull()
          || doc.isMissingNode()
          || (doc.isTextual() && doc.asText().isBlank())) {
        continue; // an empty YAML document between two "---"
      }
      objects++;
      String origin = documents.size() == 1 ? name : name + " document " + (i + 1);
      out.collect(doc, origin, null);
    }
    if (objects == 0 && out.errors.stream().noneMatch(e -> e.startsWith(name + ": "))) {
      out.errors.add(name + ": holds no Kubernetes objects");
    }
  }

  private static String readFile(Path path) throws UnreadableException {
    if (Files.isDirectory(path)) {
      throw new UnreadableException("is a directory, not a file");
    }
    try {
      return decode(Files.readAllBytes(path));
    } catch (NoSuchFileException e) {
      throw new UnreadableException("no such file");
    } catch (AccessDeniedException e) {
      throw new UnreadableException("permission denied");
    } catch (IOException e) {
      throw new UnreadableException("cannot be read: " + e.getMessage());
    }
  }

  /**
   * The text of a dump: UTF-8, or UTF-16 when a byte-order mark says so (what Windows PowerShell's
   * {@code >} writes); a leading byte-order mark is dropped.
   */
  private static String decode(byte[] bytes) throws UnreadableException {
    var charset = StandardCharsets.UTF_8;
    int skip = 0;
    if (bytes.length >= 2 && (bytes[0] & 0xff) == 0xff && (bytes[1] & 0xff) == 0xfe) {
      charset = StandardCharsets.UTF_16LE;
      skip = 2;
    } else if (bytes.length >= 2 && (bytes[0] & 0xff) == 0xfe && (bytes[1] & 0xff) == 0xff) {
      charset = StandardCharsets.UTF_16BE;
      skip = 2;
    } else if (bytes.length >= 3
        && (bytes[0] & 0xff) == 0xef
        && (bytes[1] & 0xff) == 0xbb
        && (bytes[2] & 0xff) == 0xbf) {
      skip = 3;
    }
    try {
      return charset
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, skip, bytes.length - skip))
          .toString();
    } catch (CharacterCodingException e) {
      throw new UnreadableException("is not UTF-8 text (not a kubectl JSON or YAML dump)");
    }
  }

  /** Jackson's own words for a syntax error, on one line, with line and column. */
  private static String parseProblem(Exception e) {
    if (e instanceof JsonProcessingException jpe) {
      String msg = firstLine(jpe.getOriginalMessage());
      var loc = jpe.getLocation();
      return loc == null || loc.getLineNr() < 0
          ? msg
          : msg + " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
    }
    return firstLine(String.valueOf(e.getMessage()));
  }

  static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).trim();
  }

  private static ObjectMapper yamlMapper() {
    LoaderOptions options = new LoaderOptions();
    // Dumps of big clusters exceed snakeyaml's default 3 MB document limit.
    options.setCodePointLimit(Integer.MAX_VALUE);
    return new YAMLMapper(YAMLFactory.builder().loaderOptions(options).build());
  }

  /** A file that cannot be read at all; the message says why. */
  private static final class UnreadableException extends Exception {
    private static final long serialVersionUID = 1L;

    UnreadableException(String message) {
      super(message);
    }
  }

  /** Accumulates the objects of all files, skipping duplicates (the same object read twice). */
  private static final class Collector {
    final List<Dump.Entry<DaemonSet>> daemonSets = new ArrayList<>();
    final List<Dump.Entry<Pod>> pods = new ArrayList<>();
    final List<Dump.Entry<Node>> nodes = new ArrayList<>();
    final List<Dump.Entry<ControllerRevision>> revisions = new ArrayList<>();
    final Map<String, Integer> ignored = new LinkedHashMap<>();
    final List<String> errors = new ArrayList<>();
    final Set<String> unreadableNodes = new java.util.TreeSet<>();
    final List<Dump.Unsupported> unsupported = new ArrayList<>();
    final List<Dump.Entry<io.fabric8.kubernetes.api.model.Event>> events = new ArrayList<>();
    final Set<String> seen = new HashSet<>();

    /**
     * @param itemKind the kind implied by a typed list ({@code PodList} items may omit kind)
     */
    void collect(JsonNode node, String origin, String itemKind) {
      if (!node.isObject()) {
        if (node.isArray()) { // e.g. the output of jq '.items'
          for (int i = 0; i < node.size(); i++) {
            collect(node.get(i), origin + " [" + i + "]", itemKind);
          }
          return;
        }
        errors.add(origin + ": is not a Kubernetes object (found " + jsonType(node) + ")");
        return;
      }
      JsonNode kindNode = node.get("kind");
      String kind = kindNode != null && kindNode.isTextual() ? kindNode.asText().trim() : "";
      if (kind.isEmpty()) {
        kind = itemKind == null ? "" : itemKind;
      }
      if (kind.isEmpty()) {
        errors.add(origin + ": object " + nameOf(node) + "has no kind");
        // Without a namespace it may well be a Node: its pods must not pass as "not desired".
        String name = node.path("metadata").path("name").asText("");
        if (!name.isEmpty() && node.path("metadata").path("namespace").asText("").isEmpty()) {
          unreadableNodes.add(name);
        }
        return;
      }
      JsonNode items = node.get("items");
      if (kind.endsWith("List") && (items == null || items.isArray() || items.isNull())) {
        String listed = kind.equals("List") ? null : kind.substring(0, kind.length() - 4);
        for (int i = 0; items != null && i < items.size(); i++) {
          collect(items.get(i), origin + " items[" + i + "]", listed);
        }
        return;
      }
      switch (kind) {
        case "DaemonSet" -> {
          if (judged(node)) {
            add(node, DaemonSet.class, kind, origin, daemonSets);
          } else {
            JsonNode meta = node.path("metadata");
            unsupported.add(
                new Dump.Unsupported(
                    node.path("apiVersion").asText(""),
                    kind,
                    meta.path("namespace").asText(""),
                    meta.path("name").asText(""),
                    origin));
          }
        }
        case "Pod" -> add(node, Pod.class, kind, origin, pods);
        case "Node" -> add(node, Node.class, kind, origin, nodes);
        case "ControllerRevision" -> add(node, ControllerRevision.class, kind, origin, revisions);
        case "Event" -> {
          // core/v1 only: events.k8s.io/v1 names the object in "regarding", not "involvedObject".
          if (node.path("apiVersion").asText("v1").equals("v1")) {
            add(node, io.fabric8.kubernetes.api.model.Event.class, kind, origin, events);
          } else {
            ignored.merge(kind + " (" + node.path("apiVersion").asText() + ")", 1, Integer::sum);
          }
        }
        default -> ignored.merge(kind, 1, Integer::sum);
      }
    }

    /**
     * Only {@code apps/v1} DaemonSets follow the rules the analyzer applies (another group's
     * DaemonSet, like OpenKruise's with its partition and pause, does not). An object without
     * apiVersion, as in a hand-written list, is taken for apps/v1.
     */
    private static boolean judged(JsonNode node) {
      JsonNode api = node.get("apiVersion");
      return api == null
          || api.isNull()
          || (api.isTextual() && (api.asText().isBlank() || api.asText().trim().equals("apps/v1")));
    }

    private <T extends HasMetadata> void add(
        JsonNode node, Class<T> type, String kind, String origin, List<Dump.Entry<T>> into) {
      T object;
      try {
        object = KubeJson.MAPPER.treeToValue(node, type);
      } catch (JsonProcessingException | IllegalArgumentException e) {
        errors.add(
            origin + ": " + kind + " " + nameOf(node) + "cannot be read: " + fieldProblem(e, node));
        if (type == Node.class && !node.path("metadata").path("name").asText("").isEmpty()) {
          unreadableNodes.add(node.path("metadata").path("name").asText());
        }
        return;
      }
      if (object.getMetadata() == null || object.getMetadata().getName() == null) {
        errors.add(origin + ": " + kind + " without metadata.name");
        return;
      }
      String key =
          kind + "/" + object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
      if (seen.add(key)) {
        into.add(new Dump.Entry<>(object, origin));
      }
    }

    private static String fieldProblem(Exception e, JsonNode object) {
      if (e instanceof JsonMappingException jme && !jme.getPath().isEmpty()) {
        StringBuilder path = new StringBuilder();
        JsonNode at = object;
        for (JsonMappingException.Reference ref : jme.getPath()) {
          if (ref.getFieldName() != null) {
            path.append(path.length() == 0 ? "" : ".").append(ref.getFieldName());
            at = at == null ? null : at.get(ref.getFieldName());
          } else if (ref.getIndex() >= 0) {
            path.append('[').append(ref.getIndex()).append(']');
            at = at == null ? null : at.get(ref.getIndex());
          }
        }
        String number = at != null && at.isNumber() ? numberProblem(jme, at) : null;
        return path + ": " + (number != null ? number : typeProblem(jme));
      }
      if (e instanceof JsonProcessingException jpe) {
        return firstLine(jpe.getOriginalMessage());
      }
      return firstLine(e.getMessage());
    }

    /**
     * What is wrong with a number where an integer belongs, in the input's own spelling: {@code
     * expected an integer, found 1.5}, {@code found 1e+30, out of range of a 32-bit integer}.
     */
    private static String numberProblem(JsonMappingException e, JsonNode found) {
      Class<?> target = e instanceof MismatchedInputException mie ? mie.getTargetType() : null;
      boolean wantsInteger =
          target == Integer.class
              || target == int.class
              || target == Long.class
              || target == long.class
              || target == Short.class
              || target == short.class;
      if (!wantsInteger) {
        return null;
      }
      if (found.isFloatingPointNumber() && !Double.isFinite(found.doubleValue())) {
        // 1e400 reads as Infinity: it has no decimal form left to quote.
        return "expected an integer, found a number beyond any range";
      }
      // 1e30 and 1.5 as the input spells them, not Java's 1.0E30.
      String text =
          found.isFloatingPointNumber()
              ? found.decimalValue().stripTrailingZeros().toString()
              : found.toString();
      if (!found.canConvertToExactIntegral()) {
        return "expected an integer, found " + text;
      }
      boolean wide = target == Long.class || target == long.class;
      return "expected an integer, found "
          + text
          + ", out of range of a "
          + (wide ? "64" : "32")
          + "-bit integer";
    }

    /** "expected a list, found a string" rather than Jackson's Java type names. */
    private static String typeProblem(JsonMappingException e) {
      String original = firstLine(e.getOriginalMessage());
      if (!(e instanceof MismatchedInputException mie) || mie.getTargetType() == null) {
        return original;
      }
      Class<?> target = mie.getTargetType();
      String expected =
          java.util.Collection.class.isAssignableFrom(target) || target.isArray()
              ? "a list"
              : Map.class.isAssignableFrom(target)
                  ? "a map"
                  : Number.class.isAssignableFrom(target)
                          || (target.isPrimitive() && target != boolean.class)
                      ? "a number"
                      : target == Boolean.class || target == boolean.class
                          ? "true or false"
                          : target == String.class ? "a string" : "an object";
      String found =
          original.contains("from String")
              ? "a string"
              : original.contains("from Array")
                  ? "a list"
                  : original.contains("from Object")
                      ? "an object"
                      : original.contains("from Integer") || original.contains("from Floating")
                          ? "a number"
                          : original.contains("from Boolean") ? "a boolean" : null;
      return found == null
          ? "expected " + expected + " (" + original + ")"
          : "expected " + expected + ", found " + found;
    }

    private static String nameOf(JsonNode node) {
      JsonNode meta = node.path("metadata");
      String name = meta.path("name").asText("");
      String ns = meta.path("namespace").asText("");
      if (name.isEmpty()) {
        return "";
      }
      return (ns.isEmpty() ? name : ns + "/" + name) + " ";
    }

    private static String jsonType(JsonNode node) {
      if (node.isTextual()) {
        String text = node.asText();
        return "the text \"" + (text.length() > 40 ? text.substring(0, 40) + "…" : text) + "\"";
      }
      return node.isNumber() ? "a number" : node.isBoolean() ? "a boolean" : "a scalar";
    }
  }
}
