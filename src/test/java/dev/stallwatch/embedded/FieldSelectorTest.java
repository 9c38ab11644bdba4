package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FieldSelectorTest {

  private static final String POD =
      "{'metadata':{'name':'p1'},'spec':{'nodeName':'n1'},'status':{'phase':'Running'}}";

  private static JsonNode json(String text) throws Exception {
    return new ObjectMapper().readTree(text.replace('\'', '"'));
  }

  @ParameterizedTest(name = "{0} matches: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "spec.nodeName=n1 | true",
        "spec.nodeName==n1 | true",
        "spec.nodeName=n2 | false",
        "status.phase!=Running | false",
        "status.phase!=Succeeded,spec.nodeName=n1 | true",
        "spec.nodeName= | false",
        "spec.schedulerName= | true",
        "'' | true"
      })
  void requirementsAreAndedOverObjectFields(String selector, boolean matches) throws Exception {
    assertThat(FieldSelector.parse(selector).matches(json(POD))).isEqualTo(matches);
  }

  @Test
  void listsKeepOnlyMatchingItems() throws Exception {
    ObjectNode list =
        (ObjectNode)
            json("{'items':[" + POD + ",{'metadata':{'name':'p2'},'spec':{'nodeName':'n2'}}]}");

    FieldSelector.parse("spec.nodeName=n2").filterItems(list);

    assertThat(list.path("items")).hasSize(1);
    assertThat(list.path("items").get(0).path("metadata").path("name").asText()).isEqualTo("p2");
  }

  @Test
  void theStoreIsAskedWithoutTheSelectorButWithTheOtherParameters() {
    ApiPath path =
        ApiPath.parse("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&labelSelector=app%3Dx");

    assertThat(FieldSelector.targetWithout(path)).isEqualTo("/api/v1/pods?labelSelector=app%3Dx");
  }

  @Test
  void aRequirementWithoutOperatorIsRejectedNamingIt() {
    assertThatThrownBy(() -> FieldSelector.parse("spec.nodeName"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"spec.nodeName\"");
  }
}
