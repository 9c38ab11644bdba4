package dev.stallwatch.kube.dump;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.stallwatch.kube.AdvancedViews;
import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.KubeJson;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.PodView;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
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
import java.util.Objects;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads what {@code kubectl get daemonsets,pods,nodes,controllerrevisions,events -A -o json} (or
 * {@code -o yaml}) prints: a {@code List} (also typed lists like {@code PodList}, also nested),
 * single objects, concatenated JSON values and multi-document YAML. Objects of other kinds are
 * counted and skipped; a broken file or object becomes an error line and does not stop the rest.
 *
 * <p>A dump is read as a stream (Jackson's {@link JsonParser}, token by token): the lists are never
 * held whole, only one object at a time, as a small tree without its {@code managedFields}. Pods
 * and nodes become the analyzer's views right away ({@link TreeViews}; the fabric8 model only for
 * an object with something unusual in it, to word the error as before); the few DaemonSets,
 * ControllerRevisions and Events become fabric8 objects. What a file yields is kept aside until the
 * file is read: a file that turns out not to be UTF-8 yields only that error, and a document broken
 * by a syntax error yields nothing (the documents before it still count), as when files were read
 * whole.
 */
public final class DumpReader {

  /** The name standing for standard input, as kubectl's {@code -f -}. */
  public static final String STDIN = "-";

  private static final ObjectMapper YAML = yamlMapper();

  /** Leading whitespace looked through at once to tell JSON from YAML. */
  private static final int PEEK = 1 << 16;

  private final InputStream stdin;

  public DumpReader(InputStream stdin) {
    this.stdin = stdin;
  }

  /** Reads every file in order ({@code -} is standard input). */
  public Dump read(List<String> files) {
    Collector out = new Collector();
    for (String file : files) {
      boolean isStdin = STDIN.equals(file);
      String name = isStdin ? "<stdin>" : file;
      InputStream in;
      try {
        in = isStdin ? stdin : open(Path.of(file));
      } catch (UnreadableException e) {
        out.errors.add(name + ": " + e.getMessage());
        continue;
      }
      try {
        readStream(name, in, out);
      } finally {
        if (!isStdin) {
          try {
            in.close();
          } catch (IOException e) {
            // read already; nothing to report
          }
        }
      }
    }
    return out.dump();
  }

  private static InputStream open(Path path) throws UnreadableException {
    if (Files.isDirectory(path)) {
      throw new UnreadableException("is a directory, not a file");
    }
    try {
      return Files.newInputStream(path);
    } catch (NoSuchFileException e) {
      throw new UnreadableException("no such file");
    } catch (AccessDeniedException e) {
      throw new UnreadableException("permission denied");
    } catch (IOException e) {
      throw new UnreadableException("cannot be read: " + e.getMessage());
    }
  }

  private static void readStream(String name, InputStream raw, Collector out) {
    Batch batch = new Batch();
    int documents = 0;
    int objects = 0;
    String problem = null;
    boolean json = true;
    try (BufferedReader reader = textOf(raw)) {
      int first = firstNonBlank(reader);
      if (first < 0) {
        out.errors.add(name + ": is empty: no Kubernetes objects to read");
        return;
      }
      json = first == '{' || first == '[';
      ObjectMapper mapper = json ? KubeJson.MAPPER : YAML;
      try (JsonParser p = mapper.createParser(reader)) {
        JsonToken t;
        while ((t = p.nextToken()) != null) {
          Batch document = new Batch();
          Origin origin = new Origin(documents + 1, "");
          boolean object = readRoot(p, t, origin, document);
          documents++;
          objects += object ? 1 : 0;
          batch.addAll(document);
        }
      } catch (JsonProcessingException | RuntimeException e) {
        if (notUtf8(e)) {
          throw new UnreadableException("is not UTF-8 text (not a kubectl JSON or YAML dump)");
        }
        // The documents before the broken one are still worth reading.
        problem = "not valid " + (json ? "JSON" : "YAML") + ": " + parseProblem(e);
      }
    } catch (CharacterCodingException e) {
      out.errors.add(name + ": is not UTF-8 text (not a kubectl JSON or YAML dump)");
      return;
    } catch (UnreadableException e) {
      out.errors.add(name + ": " + e.getMessage());
      return;
    } catch (IOException e) {
      if (notUtf8(e)) {
        out.errors.add(name + ": is not UTF-8 text (not a kubectl JSON or YAML dump)");
        return;
      }
      problem = "cannot be read: " + e.getMessage();
    }
    if (problem != null) {
      out.errors.add(name + ": " + problem);
    }
    out.replay(batch, name, documents);
    if (objects == 0 && out.errors.stream().noneMatch(e -> e.startsWith(name + ": "))) {
      out.errors.add(name + ": holds no Kubernetes objects");
    }
  }

  /**
   * The text of a dump: UTF-8, or UTF-16 when a byte-order mark says so (what Windows PowerShell's
   * {@code >} writes); a leading byte-order mark is dropped. Bytes that are not text in that
   * encoding fail the read with a {@link CharacterCodingException}.
   */
  private static BufferedReader textOf(InputStream raw) throws IOException {
    BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
    in.mark(3);
    byte[] head = in.readNBytes(3);
    in.reset();
    Charset charset = StandardCharsets.UTF_8;
    int skip = 0;
    if (head.length >= 2 && (head[0] & 0xff) == 0xff && (head[1] & 0xff) == 0xfe) {
      charset = StandardCharsets.UTF_16LE;
      skip = 2;
    } else if (head.length >= 2 && (head[0] & 0xff) == 0xfe && (head[1] & 0xff) == 0xff) {
      charset = StandardCharsets.UTF_16BE;
      skip = 2;
    } else if (head.length >= 3
        && (head[0] & 0xff) == 0xef
        && (head[1] & 0xff) == 0xbb
        && (head[2] & 0xff) == 0xbf) {
      skip = 3;
    }
    in.skipNBytes(skip);
    return new BufferedReader(
        new InputStreamReader(
            in,
            charset
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)),
        1 << 16);
  }

  /** The first character that is not whitespace, left unread; -1 for a blank text. */
  private static int firstNonBlank(BufferedReader reader) throws IOException {
    reader.mark(PEEK);
    int seen = 0;
    while (true) {
      int c = reader.read();
      if (c < 0) {
        return -1;
      }
      if (!Character.isWhitespace(c)) {
        reader.reset();
        return c;
      }
      if (++seen == PEEK - 1) { // a very long blank start: let it go, look further
        reader.mark(PEEK);
        seen = 0;
      }
    }
  }

  private static boolean notUtf8(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CharacterCodingException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Reads one top-level value. Returns whether it counts as an object (an empty YAML document
   * between two {@code ---} does not).
   */
  private static boolean readRoot(JsonParser p, JsonToken t, Origin origin, Batch out)
      throws IOException {
    if (t == JsonToken.START_OBJECT) {
      streamObject(p, origin, null, out);
      return true;
    }
    if (t == JsonToken.START_ARRAY) { // e.g. the output of jq '.items'
      streamArray(p, origin, null, out);
      return true;
    }
    JsonNode doc = p.readValueAsTree();
    if (doc == null
        || doc.isNull()
        || doc.isMissingNode()
        || (doc.isTextual() && doc.asText().isBlank())) {
      return false;
    }
    collect(doc, origin, null, out);
    return true;
  }

  private static void streamArray(JsonParser p, Origin origin, ListKind listed, Batch out)
      throws IOException {
    int i = 0;
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken(), i++) {
      Origin item = origin.plus(" [" + i + "]");
      if (t == JsonToken.START_OBJECT) {
        streamObject(p, item, listed, out);
      } else if (t == JsonToken.START_ARRAY) {
        streamArray(p, item, listed, out);
      } else {
        JsonNode value = p.readValueAsTree();
        collectItem(value, item, listed, out);
      }
    }
  }

  /**
   * Reads one object, the parser at its {@code START_OBJECT}. A list's {@code items} are read one
   * by one as they come (kubectl prints {@code items} before {@code kind}, so until the kind is
   * known they are kept aside and dropped if the object turns out not to be a list); any other
   * object is read as one small tree and collected.
   */
  private static void streamObject(JsonParser p, Origin origin, ListKind listed, Batch out)
      throws IOException {
    ObjectMapper codec = (ObjectMapper) p.getCodec();
    ObjectNode rest = codec.getNodeFactory().objectNode();
    String kind = null;
    Batch items = null;
    ListKind itemsKind = null;
    for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (field.equals("items")
          && value == JsonToken.START_ARRAY
          && (kind == null || kind.endsWith("List"))) {
        items = new Batch();
        itemsKind = kind == null ? new ListKind() : ListKind.of(kind);
        int i = 0;
        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken(), i++) {
          Origin item = origin.plus(" items[" + i + "]");
          if (e == JsonToken.START_OBJECT) {
            streamObject(p, item, itemsKind, items);
          } else {
            collectItem(p.readValueAsTree(), item, itemsKind, items);
          }
        }
        rest.remove("items");
        continue;
      }
      JsonNode node = field.equals("metadata") ? metadata(p, codec) : codec.readTree(p);
      rest.set(field, node);
      if (field.equals("kind")) {
        kind = node.isTextual() ? node.asText().trim() : "";
        if (items != null && !kind.endsWith("List")) {
          items = null; // not a list after all: its "items" are some other field
        }
      }
    }
    String effective = kind == null ? "" : kind;
    JsonNode itemsField = rest.get("items");
    if (effective.endsWith("List")
        && (items != null || itemsField == null || itemsField.isNull() || itemsField.isArray())) {
      if (items != null) {
        itemsKind.resolve(effective);
        out.addAll(items);
      } else {
        collect(rest, origin, null, out); // "items": null, absent, or an array of a kind seen first
      }
      return;
    }
    collectItem(rest, origin, listed, out);
  }

  /** An object's metadata, without {@code managedFields} (large, never read). */
  private static JsonNode metadata(JsonParser p, ObjectMapper codec) throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      return codec.readTree(p);
    }
    ObjectNode meta = codec.getNodeFactory().objectNode();
    for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
      String field = p.currentName();
      p.nextToken();
      if (field.equals("managedFields")) {
        p.skipChildren();
        continue;
      }
      meta.set(field, codec.readTree(p));
    }
    return meta;
  }

  /**
   * Collects an item of a list whose kind may not be known yet: a kindless item of a list whose
   * kind comes later waits for it.
   */
  private static void collectItem(JsonNode node, Origin origin, ListKind listed, Batch out) {
    if (listed != null && !listed.resolved() && node.isObject() && !hasKind(node)) {
      out.add(
          (c, names) -> {
            Batch later = new Batch();
            collect(node, origin, listed.kind(), later);
            c.replay(later, names);
          });
      return;
    }
    collect(node, origin, listed == null ? null : listed.kind(), out);
  }

  private static boolean hasKind(JsonNode node) {
    JsonNode kind = node.get("kind");
    return kind != null && kind.isTextual() && !kind.asText().trim().isEmpty();
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
  private static final class UnreadableException extends IOException {
    private static final long serialVersionUID = 1L;

    UnreadableException(String message) {
      super(message);
    }
  }

  /**
   * Where in a file an object was read: its document (1-based) and the path within it ({@code "
   * items[3]"}). Named once the file is read, when it is known whether there was more than one
   * document.
   */
  record Origin(int document, String path) {
    Origin plus(String more) {
      return new Origin(document, path + more);
    }
  }

  /**
   * How the origins of one file are named: {@code dump.json items[3]}, {@code all.yaml document 2}.
   */
  record Names(String file, int documents) {
    String of(Origin o) {
      return documents == 1 ? file + o.path() : file + " document " + o.document() + o.path();
    }
  }

  /** The kind a typed list implies for its items ({@code PodList}: Pod), once known. */
  private static final class ListKind {
    private boolean resolved;
    private String kind;

    static ListKind of(String listKind) {
      ListKind k = new ListKind();
      k.resolve(listKind);
      return k;
    }

    void resolve(String listKind) {
      resolved = true;
      kind = listKind.equals("List") ? null : listKind.substring(0, listKind.length() - 4);
    }

    boolean resolved() {
      return resolved;
    }

    String kind() {
      return kind;
    }
  }

  /** One step of collecting, kept until its file is read. */
  private interface Action {
    void apply(Collector c, Names names);
  }

  /** What part of a file yields, in order. */
  private static final class Batch {
    private final List<Action> actions = new ArrayList<>();

    void add(Action a) {
      actions.add(a);
    }

    void addAll(Batch other) {
      actions.addAll(other.actions);
    }

    void error(Origin origin, String message) {
      add((c, n) -> c.errors.add(n.of(origin) + ": " + message));
    }
  }

  /**
   * Collects one object read as a tree (a single object, an item of a list, a document).
   *
   * @param itemKind the kind implied by a typed list ({@code PodList} items may omit kind)
   */
  private static void collect(JsonNode node, Origin origin, String itemKind, Batch out) {
    if (!node.isObject()) {
      if (node.isArray()) {
        for (int i = 0; i < node.size(); i++) {
          collect(node.get(i), origin.plus(" [" + i + "]"), itemKind, out);
        }
        return;
      }
      out.error(origin, "is not a Kubernetes object (found " + jsonType(node) + ")");
      return;
    }
    JsonNode kindNode = node.get("kind");
    String kind = kindNode != null && kindNode.isTextual() ? kindNode.asText().trim() : "";
    if (kind.isEmpty()) {
      kind = itemKind == null ? "" : itemKind;
    }
    if (kind.isEmpty()) {
      out.error(origin, "object " + nameOf(node) + "has no kind");
      // Without a namespace it may well be a Node: its pods must not pass as "not desired".
      String name = node.path("metadata").path("name").asText("");
      if (!name.isEmpty() && node.path("metadata").path("namespace").asText("").isEmpty()) {
        out.add((c, n) -> c.unreadableNodes.add(name));
      }
      return;
    }
    JsonNode items = node.get("items");
    if (kind.endsWith("List") && (items == null || items.isArray() || items.isNull())) {
      String listed = kind.equals("List") ? null : kind.substring(0, kind.length() - 4);
      for (int i = 0; items != null && i < items.size(); i++) {
        collect(items.get(i), origin.plus(" items[" + i + "]"), listed, out);
      }
      return;
    }
    String k = kind;
    switch (kind) {
      case "DaemonSet" -> {
        if (judged(node)) {
          DaemonSet ds = mapped(node, DaemonSet.class, kind, origin, out);
          if (ds != null) {
            out.add((c, n) -> c.add(ds, k, n.of(origin), c.daemonSets));
          }
        } else {
          JsonNode meta = node.path("metadata");
          Dump.Unsupported u =
              new Dump.Unsupported(
                  node.path("apiVersion").asText(""),
                  kind,
                  meta.path("namespace").asText(""),
                  meta.path("name").asText(""),
                  "");
          out.add(
              (c, n) ->
                  c.unsupported.add(
                      new Dump.Unsupported(
                          u.apiVersion(), u.kind(), u.namespace(), u.name(), n.of(origin))));
        }
      }
      case "Pod" -> pod(node, origin, out);
      case "Node" -> node(node, origin, out);
      case "ControllerRevision" -> {
        ControllerRevision rev = mapped(node, ControllerRevision.class, kind, origin, out);
        if (rev != null) {
          out.add((c, n) -> c.add(rev, k, n.of(origin), c.revisions));
        }
      }
      case "Event" -> {
        // core/v1 only: events.k8s.io/v1 names the object in "regarding", not "involvedObject".
        if (node.path("apiVersion").asText("v1").equals("v1")) {
          var event = mapped(node, io.fabric8.kubernetes.api.model.Event.class, kind, origin, out);
          if (event != null) {
            out.add((c, n) -> c.add(event, k, n.of(origin), c.events));
          }
        } else {
          String key = kind + " (" + node.path("apiVersion").asText() + ")";
          out.add((c, n) -> c.ignored.merge(key, 1, Integer::sum));
        }
      }
      default -> out.add((c, n) -> c.ignored.merge(k, 1, Integer::sum));
    }
  }

  /**
   * The DaemonSets whose rules the analyzer knows: {@code apps/v1} and OpenKruise's Advanced
   * DaemonSet in {@code apps.kruise.io/v1beta1} and {@code v1alpha1}; any other group's or
   * version's is listed as unsupported. An object without apiVersion, as in a hand-written list, is
   * taken for apps/v1.
   */
  private static boolean judged(JsonNode node) {
    JsonNode api = node.get("apiVersion");
    return api == null
        || api.isNull()
        || (api.isTextual()
            && (api.asText().isBlank()
                || api.asText().trim().equals("apps/v1")
                || AdvancedViews.VERSIONS.contains(api.asText().trim())));
  }

  /** A pod's view, straight from its JSON; the fabric8 path for anything unusual. */
  private static void pod(JsonNode node, Origin origin, Batch out) {
    PodView view;
    try {
      view = TreeViews.pod(node);
    } catch (TreeViews.Unusual unusual) {
      Pod pod = mapped(node, Pod.class, "Pod", origin, out);
      if (pod == null) {
        return;
      }
      if (pod.getMetadata() == null || pod.getMetadata().getName() == null) {
        out.error(origin, "Pod without metadata.name");
        return;
      }
      String key =
          "Pod/"
              + Objects.toString(pod.getMetadata().getNamespace(), "")
              + "/"
              + pod.getMetadata().getName();
      try {
        view = KubeViews.pod(pod);
      } catch (InvalidObjectException e) {
        out.add(
            (c, n) -> {
              if (c.seen.add(key)) {
                c.invalidPods.add(n.of(origin) + ": " + e.getMessage());
              }
            });
        return;
      }
    }
    PodView v = view;
    String key = "Pod/" + v.namespace() + "/" + v.name();
    out.add(
        (c, n) -> {
          if (c.seen.add(key)) {
            c.pods.add(new Dump.Entry<>(v, n.of(origin)));
          }
        });
  }

  /** A node's view, straight from its JSON; the fabric8 path for anything unusual. */
  private static void node(JsonNode json, Origin origin, Batch out) {
    NodeView view;
    try {
      view = TreeViews.node(json);
    } catch (TreeViews.Unusual unusual) {
      Node node = mapped(json, Node.class, "Node", origin, out);
      if (node == null) {
        return;
      }
      if (node.getMetadata() == null || node.getMetadata().getName() == null) {
        out.error(origin, "Node without metadata.name");
        return;
      }
      String name = node.getMetadata().getName();
      String key = "Node/" + Objects.toString(node.getMetadata().getNamespace(), "") + "/" + name;
      try {
        view = KubeViews.node(node);
      } catch (InvalidObjectException e) {
        out.add(
            (c, n) -> {
              if (c.seen.add(key)) {
                c.invalidNodes.add(n.of(origin) + ": " + e.getMessage());
                c.unreadableNodes.add(name);
              }
            });
        return;
      }
    }
    NodeView v = view;
    String key = "Node/" + json.path("metadata").path("namespace").asText("") + "/" + v.name();
    out.add(
        (c, n) -> {
          if (c.seen.add(key)) {
            c.nodes.add(new Dump.Entry<>(v, n.of(origin)));
          }
        });
  }

  /** The fabric8 object, or null after an error naming the field that cannot be read. */
  private static <T extends HasMetadata> T mapped(
      JsonNode node, Class<T> type, String kind, Origin origin, Batch out) {
    try {
      return KubeJson.MAPPER.treeToValue(node, type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      String message = kind + " " + nameOf(node) + "cannot be read: " + fieldProblem(e, node);
      out.error(origin, message);
      String name = node.path("metadata").path("name").asText("");
      if (type == Node.class && !name.isEmpty()) {
        out.add((c, n) -> c.unreadableNodes.add(name));
      }
      return null;
    }
  }

  /** Accumulates the objects of all files, skipping duplicates (the same object read twice). */
  private static final class Collector {
    final List<Dump.Entry<DaemonSet>> daemonSets = new ArrayList<>();
    final List<Dump.Entry<PodView>> pods = new ArrayList<>();
    final List<Dump.Entry<NodeView>> nodes = new ArrayList<>();
    final List<Dump.Entry<ControllerRevision>> revisions = new ArrayList<>();
    final Map<String, Integer> ignored = new LinkedHashMap<>();
    final List<String> errors = new ArrayList<>();
    final Set<String> unreadableNodes = new java.util.TreeSet<>();
    final List<Dump.Unsupported> unsupported = new ArrayList<>();
    final List<Dump.Entry<io.fabric8.kubernetes.api.model.Event>> events = new ArrayList<>();
    final List<String> invalidPods = new ArrayList<>();
    final List<String> invalidNodes = new ArrayList<>();
    final Set<String> seen = new HashSet<>();

    void replay(Batch batch, String file, int documents) {
      replay(batch, new Names(file, documents));
    }

    void replay(Batch batch, Names names) {
      for (Action a : batch.actions) {
        a.apply(this, names);
      }
    }

    <T extends HasMetadata> void add(
        T object, String kind, String origin, List<Dump.Entry<T>> into) {
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

    Dump dump() {
      return new Dump(
          daemonSets,
          pods,
          nodes,
          revisions,
          ignored,
          errors,
          unreadableNodes,
          unsupported,
          events,
          invalidPods,
          invalidNodes);
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
