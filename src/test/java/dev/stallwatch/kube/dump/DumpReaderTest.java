package dev.stallwatch.kube.dump;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.kube.KubeFixtures;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DumpReaderTest {
  @TempDir Path dir;

  static final InputStream NO_STDIN = InputStream.nullInputStream();

  Dump read(String... files) {
    return new DumpReader(NO_STDIN).read(List.of(files));
  }

  String write(String name, String content) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, content);
    return file.toString();
  }

  static void assertSeedObjects(Dump dump) {
    assertThat(dump.errors()).isEmpty();
    assertThat(dump.daemonSets()).hasSize(1);
    assertThat(dump.pods()).hasSize(3);
    assertThat(dump.nodes()).hasSize(3);
    assertThat(dump.revisions()).hasSize(2);
  }

  @Test
  void a_kubectl_json_list_yields_every_object_with_its_origin() {
    String file = KubeFixtures.path("imagepull-stalled.json").toString();
    Dump dump = read(file);

    assertSeedObjects(dump);
    assertThat(dump.daemonSets().get(0).origin()).isEqualTo(file + " items[0]");
    assertThat(dump.pods().get(0).object().containerStatuses().get(0).waitingReason())
        .isEqualTo("ImagePullBackOff");
    assertThat(dump.ignored()).isEmpty();
  }

  @Test
  void a_kubectl_yaml_list_and_a_multi_document_yaml_read_like_the_json() {
    assertSeedObjects(read(KubeFixtures.path("imagepull-stalled.yaml").toString()));
    Dump multi = read(KubeFixtures.path("imagepull-stalled-multidoc.yaml").toString());
    assertSeedObjects(multi);
    assertThat(multi.pods().get(0).origin()).endsWith("imagepull-stalled-multidoc.yaml document 2");
  }

  @Test
  void other_kinds_are_counted_and_skipped() {
    Dump dump = read(KubeFixtures.path("complete.json").toString());
    assertThat(dump.errors()).isEmpty();
    assertThat(dump.ignored()).containsEntry("Service", 1).containsEntry("ConfigMap", 1);
    assertThat(dump.daemonSets()).hasSize(1);
  }

  @Test
  void a_single_object_and_typed_lists_whose_items_omit_kind_are_read() throws IOException {
    String single =
        write(
            "node.yaml",
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-node-9\n"
                + "spec:\n  unschedulable: true\n");
    String typed =
        write(
            "pods.json",
            "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\"},"
                + "\"items\":[{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"}}]}");
    Dump dump = read(single, typed);

    assertThat(dump.errors()).isEmpty();
    assertThat(dump.nodes()).extracting(e -> e.object().name()).containsExactly("gpu-node-9");
    assertThat(dump.pods()).extracting(e -> e.object().name()).containsExactly("p");
  }

  @Test
  void nested_lists_and_concatenated_json_values_are_read() throws IOException {
    String file =
        write(
            "nested.json",
            "{\"kind\":\"List\",\"items\":[{\"kind\":\"List\",\"items\":["
                + "{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}]}]}\n"
                + "{\"kind\":\"Node\",\"metadata\":{\"name\":\"b\"}}\n");
    Dump dump = read(file);
    assertThat(dump.errors()).isEmpty();
    assertThat(dump.nodes())
        .extracting(Dump.Entry::origin)
        .containsExactly(file + " document 1 items[0] items[0]", file + " document 2");
  }

  @Test
  void the_same_object_read_twice_counts_once() {
    String file = KubeFixtures.path("imagepull-stalled.json").toString();
    assertSeedObjects(read(file, KubeFixtures.path("imagepull-stalled.yaml").toString()));
  }

  @Test
  void standard_input_is_read_for_a_dash() throws IOException {
    byte[] bytes = Files.readAllBytes(KubeFixtures.path("imagepull-stalled.yaml"));
    Dump dump = new DumpReader(new ByteArrayInputStream(bytes)).read(List.of("-"));
    assertSeedObjects(dump);
    assertThat(dump.daemonSets().get(0).origin()).isEqualTo("<stdin> items[0]");
  }

  @Test
  void unreadable_files_are_errors_naming_the_file() throws IOException {
    String missing = dir.resolve("nope.json").toString();
    String empty = write("empty.json", "  \n");
    String binary = dir.resolve("core.bin").toString();
    Files.write(Path.of(binary), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2});

    Dump dump = read(missing, empty, dir.toString(), binary);

    assertThat(dump.errors())
        .containsExactly(
            missing + ": no such file",
            empty + ": is empty: no Kubernetes objects to read",
            dir + ": is a directory, not a file",
            binary + ": is not UTF-8 text (not a kubectl JSON or YAML dump)");
  }

  @Test
  void broken_json_and_yaml_are_errors_with_a_line_number() throws IOException {
    String json = write("broken.json", "{\n  \"kind\": \"List\",\n  \"items\": [ {\"kind\": }\n");
    String yaml = write("broken.yaml", "kind: Node\nmetadata:\n  name: [unclosed\n");

    List<String> errors = read(json, yaml).errors();

    assertThat(errors).hasSize(2);
    assertThat(errors.get(0)).startsWith(json + ": not valid JSON: ").contains("line 3");
    assertThat(errors.get(1)).startsWith(yaml + ": not valid YAML: ").contains("line");
    assertThat(String.join("\n", errors)).doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void text_that_is_no_object_and_objects_without_kind_are_errors() throws IOException {
    String prose = write("notes.txt", "the rollout is stuck again\n");
    String kindless =
        write("kindless.json", "{\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"x\"}}]}");

    assertThat(read(prose, kindless).errors())
        .containsExactly(
            prose + ": is not a Kubernetes object (found the text \"the rollout is stuck again\")",
            kindless + " items[0]: object x has no kind");
  }

  @Test
  void an_object_with_a_field_of_the_wrong_type_names_object_and_field() throws IOException {
    String file =
        write(
            "bad.yaml",
            "kind: Pod\napiVersion: v1\nmetadata:\n  name: p\n  namespace: ns\n"
                + "spec:\n  tolerations: everything\n---\nkind: Node\nmetadata:\n  name: n\n");

    Dump dump = read(file);

    assertThat(dump.errors())
        .containsExactly(
            file
                + " document 1: Pod ns/p cannot be read: spec.tolerations: expected a list,"
                + " found a string");
    assertThat(dump.nodes()).hasSize(1);
  }

  @Test
  void a_number_that_is_no_integer_is_named_as_the_input_spells_it() throws IOException {
    String file =
        write(
            "numbers.json",
            "{\"kind\": \"List\", \"items\": ["
                + "{\"kind\": \"DaemonSet\", \"apiVersion\": \"apps/v1\","
                + " \"metadata\": {\"name\": \"a\", \"namespace\": \"ns\"},"
                + " \"status\": {\"numberAvailable\": 1.5}},"
                + "{\"kind\": \"DaemonSet\", \"apiVersion\": \"apps/v1\","
                + " \"metadata\": {\"name\": \"b\", \"namespace\": \"ns\"},"
                + " \"status\": {\"numberAvailable\": 1e30}},"
                + "{\"kind\": \"DaemonSet\", \"apiVersion\": \"apps/v1\","
                + " \"metadata\": {\"name\": \"c\", \"namespace\": \"ns\"},"
                + " \"status\": {\"numberAvailable\": \"three\"}}]}");

    assertThat(read(file).errors())
        .containsExactly(
            file
                + " items[0]: DaemonSet ns/a cannot be read: status.numberAvailable: expected an"
                + " integer, found 1.5",
            file
                + " items[1]: DaemonSet ns/b cannot be read: status.numberAvailable: expected an"
                + " integer, found 1E+30, out of range of a 32-bit integer",
            file
                + " items[2]: DaemonSet ns/c cannot be read: status.numberAvailable: expected a"
                + " number, found a string");
  }

  @Test
  void a_file_of_empty_yaml_documents_holds_no_objects() throws IOException {
    String file = write("dashes.yaml", "---\n---\n");
    assertThat(read(file).errors()).containsExactly(file + ": holds no Kubernetes objects");
  }

  @Test
  void the_documents_before_a_yaml_syntax_error_are_still_read() throws IOException {
    String file =
        write(
            "half.yaml", "kind: Node\nmetadata:\n  name: a\n---\nkind: Node\nmetadata: {name: [\n");
    Dump dump = read(file);
    assertThat(dump.nodes()).hasSize(1);
    assertThat(dump.errors()).singleElement().asString().startsWith(file + ": not valid YAML");
  }

  @Test
  void a_byte_order_mark_is_honoured_as_powershell_writes_utf16() throws IOException {
    String text = Files.readString(KubeFixtures.path("imagepull-stalled.json"));
    Path utf16 = dir.resolve("utf16.json");
    byte[] body = text.getBytes(StandardCharsets.UTF_16LE);
    byte[] withBom = new byte[body.length + 2];
    withBom[0] = (byte) 0xff;
    withBom[1] = (byte) 0xfe;
    System.arraycopy(body, 0, withBom, 2, body.length);
    Files.write(utf16, withBom);
    Path utf8 = dir.resolve("bom.yaml");
    Files.writeString(
        utf8, "\uFEFF" + Files.readString(KubeFixtures.path("imagepull-stalled.yaml")));

    assertSeedObjects(read(utf16.toString()));
    assertSeedObjects(read(utf8.toString()));
  }

  @Test
  void stdin_that_is_not_utf8_is_an_error() {
    Dump dump =
        new DumpReader(new ByteArrayInputStream(new byte[] {(byte) 0xc3, (byte) 0x28}))
            .read(List.of("-"));
    assertThat(dump.errors())
        .containsExactly("<stdin>: is not UTF-8 text (not a kubectl JSON or YAML dump)");
  }

  @Test
  void items_before_the_kind_of_a_typed_list_take_the_lists_kind() throws IOException {
    // kubectl and the API server print "items" before "kind": the kind of kindless items is
    // known only after them.
    String file =
        write(
            "typed.json",
            "{\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"a\"}},"
                + "{\"kind\":\"Node\",\"metadata\":{\"name\":\"b\"}},"
                + "{\"metadata\":{\"name\":\"c\"}}],\"kind\":\"NodeList\"}");
    Dump dump = read(file);
    assertThat(dump.errors()).isEmpty();
    assertThat(dump.nodes())
        .extracting(Dump.Entry::origin)
        .containsExactly(file + " items[0]", file + " items[1]", file + " items[2]");
  }

  @Test
  void an_items_field_of_an_object_that_is_no_list_is_not_read_as_items() throws IOException {
    String file =
        write(
            "odd.json",
            "{\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"inner\"}}],"
                + "\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\"}}");
    Dump dump = read(file);
    assertThat(dump.errors()).isEmpty();
    assertThat(dump.nodes()).isEmpty();
    assertThat(dump.ignored()).containsExactly(java.util.Map.entry("ConfigMap", 1));
  }

  @Test
  void a_json_document_broken_after_some_items_yields_none_of_them() throws IOException {
    String file =
        write(
            "cut.json",
            "{\"kind\":\"Node\",\"metadata\":{\"name\":\"first\"}}\n"
                + "{\"apiVersion\":\"v1\",\"items\":["
                + "{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}},"
                + "{\"kind\":\"Node\",\"metadata\":{\"name\":\"b\"");
    Dump dump = read(file);
    assertThat(dump.nodes()).extracting(e -> e.object().name()).containsExactly("first");
    assertThat(dump.nodes().get(0).origin()).isEqualTo(file);
    assertThat(dump.errors()).singleElement().asString().startsWith(file + ": not valid JSON: ");
  }

  @Test
  void managed_fields_are_not_read_and_a_large_dump_is_read_whole() throws IOException {
    Path file = dir.resolve("large.json");
    LargeDump.write(file, 200);
    Dump dump = read(file.toString());
    assertThat(dump.errors()).isEmpty();
    assertThat(dump.nodes()).hasSize(200);
    assertThat(dump.pods()).hasSize(200);
    assertThat(dump.revisions()).hasSize(2);
    assertThat(dump.daemonSets())
        .singleElement()
        .satisfies(e -> assertThat(e.origin()).isEqualTo(file + " items[0]"));
    assertThat(dump.pods().get(199).origin()).isEqualTo(file + " items[402]");
  }
}
