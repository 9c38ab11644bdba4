package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KubectlColumnsTest {

  private static JsonNode json(String text) throws Exception {
    return new ObjectMapper().readTree(text.replace('\'', '"'));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "ready | {'status':{'conditions':[{'type':'Ready','status':'True'}]}} | Ready",
        "not ready | {'status':{'conditions':[{'type':'Ready','status':'False'}]}} | NotReady",
        "kubelet stopped posting | {'status':{'conditions':[{'type':'Ready','status':'Unknown'}]}} | Unknown",
        "no Ready condition | {'status':{'conditions':[{'type':'DiskPressure','status':'False'}]}} | Unknown",
        "cordoned | {'spec':{'unschedulable':true},'status':{'conditions':[{'type':'Ready','status':'True'}]}} | Ready,SchedulingDisabled"
      })
  void nodeStatusIsReadinessPlusCordon(String why, String node, String status) throws Exception {
    assertThat(KubectlColumns.nodeStatus(json(node))).isEqualTo(status);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "no role labels | {'metadata':{'labels':{'zone':'a'}}} | <none>",
        "node-role labels, sorted | {'metadata':{'labels':{'node-role.kubernetes.io/worker':'','node-role.kubernetes.io/control-plane':''}}} | control-plane,worker",
        "legacy kubernetes.io/role | {'metadata':{'labels':{'kubernetes.io/role':'infra'}}} | infra"
      })
  void nodeRolesComeFromLabels(String why, String node, String roles) throws Exception {
    assertThat(KubectlColumns.nodeRoles(json(node))).isEqualTo(roles);
  }

  @Test
  void typesWithoutColumnsOfTheirOwnGetNameAndAge() {
    ServedResource leases =
        ServedResource.builtin(
            "coordination.k8s.io/v1", "leases", "Lease", true, List.of(), List.of());

    assertThat(KubectlColumns.forResource(leases))
        .extracting(TableColumn::name)
        .containsExactly("Name", "Age");
  }

  @Test
  void wideColumnsHavePriorityOne() {
    assertThat(KubectlColumns.daemonSet())
        .filteredOn(c -> c.priority() == 1)
        .extracting(TableColumn::name)
        .containsExactly("Containers", "Images", "Selector");
    assertThat(PodColumns.all())
        .filteredOn(c -> c.priority() == 1)
        .extracting(TableColumn::name)
        .containsExactly("IP", "Node", "Nominated Node", "Readiness Gates");
  }
}
