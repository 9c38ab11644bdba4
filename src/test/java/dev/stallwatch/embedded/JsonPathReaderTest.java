package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonPathReaderTest {

  private static final JsonNode OBJECT;

  static {
    try {
      OBJECT =
          new ObjectMapper()
              .readTree(
                  "{\"spec\":{\"size\":3,\"containers\":[{\"image\":\"a:1\"},{\"image\":\"b:2\"}]},"
                      + "\"status\":{\"phase\":\"Stalled\",\"conditions\":["
                      + "{\"type\":\"Progressing\",\"status\":\"False\"},"
                      + "{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"AllGood\"}]}}");
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @ParameterizedTest(name = "{0} reads {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        ".status.phase | Stalled",
        "{.status.phase} | Stalled",
        "$.spec.size | 3",
        ".spec.containers[1].image | b:2",
        ".status.conditions[?(@.type==\"Ready\")].status | True",
        ".status.conditions[?(@.type=='Progressing')].status | False"
      })
  void printerColumnPathsReadTheirValue(String path, String value) {
    assertThat(JsonPathReader.compile(path).read(OBJECT).asText()).isEqualTo(value);
  }

  @ParameterizedTest(name = "{0} reads nothing")
  @CsvSource({
    ".status.missing",
    ".spec.containers[5].image",
    ".status.conditions[?(@.type==\"Gone\")].status",
    ".spec.size.deeper"
  })
  void absentValuesReadAsNull(String path) {
    assertThat(JsonPathReader.compile(path).read(OBJECT)).isNull();
  }

  @Test
  void unsupportedSyntaxIsRejectedNamingThePath() {
    assertThatThrownBy(() -> JsonPathReader.compile(".spec.containers[*].image"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(".spec.containers[*].image");
  }
}
