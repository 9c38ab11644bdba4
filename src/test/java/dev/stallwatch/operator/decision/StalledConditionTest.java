package dev.stallwatch.operator.decision;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.effects.ConditionWrites;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.apps.DaemonSetCondition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which Stalled condition a DaemonSet's RolloutStalls call for, and the patch that writes it. */
public class StalledConditionTest {
  static final String NEW = "7f6c8d9b4";
  static final String OLD = "5d4b9c7f8";

  public static RolloutStall stall(String revision, String status) {
    return Serialization.unmarshal(
        "{\"apiVersion\":\"stallwatch.dev/v1alpha1\",\"kind\":\"RolloutStall\","
            + "\"metadata\":{\"name\":\"ds-"
            + revision
            + "\",\"namespace\":\"ops\"},\"spec\":{\"daemonSet\":\"ds\",\"revision\":\""
            + revision
            + "\"},\"status\":"
            + status
            + "}",
        RolloutStall.class);
  }

  public static final String ACTIVE =
      "{\"phase\":\"Active\",\"node\":\"gpu-node-1\",\"cause\":\"ImagePull\","
          + "\"reason\":\"ImagePullBackOff\",\"suspect\":\"NewRevision\",\"ready\":\"2/3\","
          + "\"stalledSince\":\"2026-12-05T10:00:00Z\",\"oldRevision\":{\"hash\":\""
          + OLD
          + "\"},\"newRevision\":{\"hash\":\""
          + NEW
          + "\"}}";

  static String resolved(String at, String reason, String message) {
    return "{\"phase\":\"Resolved\",\"node\":\"gpu-node-1\",\"cause\":\"ImagePull\","
        + "\"stalledSince\":\"2026-12-05T10:00:00Z\",\"resolvedAt\":\""
        + at
        + "\",\"conditions\":[{\"type\":\"Resolved\",\"status\":\"True\",\"reason\":\""
        + reason
        + "\",\"message\":\""
        + message
        + "\"}]}";
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "an Active stall of the current revision: True, its cause, since its stalledSince",
            List.of(stall(NEW, ACTIVE)),
            Optional.of(
                new StalledCondition(
                    "True",
                    "ImagePull",
                    "Rollout stalled on node gpu-node-1: ImagePull (ImagePullBackOff); suspect"
                        + " NewRevision: rollback would help; old revision "
                        + OLD
                        + ", new revision "
                        + NEW
                        + "; 2/3 ready; stalled since 2026-12-05T10:00:00Z",
                    "2026-12-05T10:00:00Z"))),
        Arguments.of(
            "an Active stall of another revision only: no condition",
            List.of(stall(OLD, ACTIVE)),
            Optional.empty()),
        Arguments.of(
            "resolved stalls: False, the latest one's resolution, at its resolvedAt",
            List.of(
                stall(OLD, resolved("2026-12-05T09:00:00Z", "RolloutComplete", "old done")),
                stall(NEW, resolved("2026-12-05T11:00:00Z", "RolledBack", "rolled back"))),
            Optional.of(
                new StalledCondition(
                    "False", "RolledBack", "rolled back", "2026-12-05T11:00:00Z"))),
        Arguments.of(
            "an Active stall beside a resolved one: True",
            List.of(
                stall(OLD, resolved("2026-12-05T09:00:00Z", "Superseded", "superseded")),
                stall(NEW, ACTIVE)),
            Optional.of(new StalledCondition("True", "ImagePull", "", "2026-12-05T10:00:00Z"))),
        Arguments.of("no RolloutStall: nothing to write", List.of(), Optional.empty()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theConditionFollowsTheRecord(
      String what, List<RolloutStall> stalls, Optional<StalledCondition> expected) {
    Optional<StalledCondition> got = StalledCondition.of(stalls, NEW);
    assertThat(got.map(StalledCondition::status)).isEqualTo(expected.map(StalledCondition::status));
    assertThat(got.map(StalledCondition::reason)).isEqualTo(expected.map(StalledCondition::reason));
    assertThat(got.map(StalledCondition::lastTransitionTime))
        .isEqualTo(expected.map(StalledCondition::lastTransitionTime));
    if (expected.isPresent() && !expected.get().message().isEmpty()) {
      assertThat(got.get().message()).isEqualTo(expected.get().message());
    }
  }

  static DaemonSetCondition condition(String type, String status, String reason) {
    DaemonSetCondition c = new DaemonSetCondition();
    c.setType(type);
    c.setStatus(status);
    c.setReason(reason);
    return c;
  }

  @Test
  void aConditionIsInTheListOnlyWithTheSameStatusReasonMessageAndTime() {
    StalledCondition wanted = new StalledCondition("True", "ImagePull", "m", "t");
    assertThat(wanted.isIn(null)).isFalse();
    assertThat(wanted.isIn(List.of(condition("Other", "True", "ImagePull")))).isFalse();
    assertThat(wanted.isIn(List.of(wanted.toCondition()))).isTrue();
    DaemonSetCondition older = wanted.toCondition();
    older.setLastTransitionTime("earlier");
    assertThat(wanted.isIn(List.of(older))).isFalse();
  }

  @Test
  void theTransitionTimeIsInWholeSecondsAsTheApiServerStoresItSoAConditionReadBackMatches() {
    // kube-apiserver keeps a condition's lastTransitionTime (metav1.Time) in whole seconds: a
    // time with a fraction would never compare equal and every reconcile would patch again.
    assertThat(StalledCondition.apiTime(Instant.parse("2026-12-06T02:25:59.764324221Z")))
        .isEqualTo("2026-12-06T02:25:59Z");
    assertThat(StalledCondition.apiTime(Instant.parse("2026-12-06T02:25:59Z")))
        .isEqualTo("2026-12-06T02:25:59Z");

    // the record keeps its own precision; the condition takes the API's
    RolloutStall fractional =
        stall(NEW, ACTIVE.replace("2026-12-05T10:00:00Z", "2026-12-06T02:25:59.7Z"));
    StalledCondition wanted = StalledCondition.of(List.of(fractional), NEW).orElseThrow();
    assertThat(wanted.message()).endsWith("stalled since 2026-12-06T02:25:59.7Z");
    assertThat(wanted.lastTransitionTime()).isEqualTo("2026-12-06T02:25:59Z");
    DaemonSetCondition readBack = wanted.toCondition();
    readBack.setLastTransitionTime("2026-12-06T02:25:59Z");
    assertThat(wanted.isIn(List.of(readBack))).isTrue();
  }

  static Stream<Arguments> patches() {
    StalledCondition c = new StalledCondition("True", "ImagePull", "m", "t");
    String value =
        "{\"lastTransitionTime\":\"t\",\"message\":\"m\",\"reason\":\"ImagePull\","
            + "\"status\":\"True\",\"type\":\"Stalled\"}";
    String test = "{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"42\"}";
    List<DaemonSetCondition> others = new ArrayList<>(List.of(condition("Other", "True", "x")));
    List<DaemonSetCondition> ours =
        new ArrayList<>(
            List.of(condition("Other", "True", "x"), condition("Stalled", "False", "y")));
    return Stream.of(
        Arguments.of(
            "no conditions: the list added",
            c,
            null,
            "["
                + test
                + ",{\"op\":\"add\",\"path\":\"/status/conditions\",\"value\":["
                + value
                + "]}]"),
        Arguments.of(
            "other conditions only: appended, the others untouched",
            c,
            others,
            "["
                + test
                + ",{\"op\":\"add\",\"path\":\"/status/conditions/-\",\"value\":"
                + value
                + "}]"),
        Arguments.of(
            "a Stalled condition: that entry replaced, in place",
            c,
            ours,
            "["
                + test
                + ",{\"op\":\"replace\",\"path\":\"/status/conditions/1\",\"value\":"
                + value
                + "}]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("patches")
  void thePatchTouchesOnlyTheStalledEntryAndOnlyAtTheVersionRead(
      String what, StalledCondition c, List<DaemonSetCondition> current, String expected)
      throws Exception {
    ObjectMapper json = new ObjectMapper();
    assertThat(json.readTree(ConditionWrites.patch(c, current, "42")))
        .isEqualTo(json.readTree(expected));
  }

  public static ManagedFieldsEntry managed(String manager, String subresource, String fields) {
    ManagedFieldsEntry e = new ManagedFieldsEntry();
    e.setManager(manager);
    e.setOperation("Update");
    e.setSubresource(subresource);
    FieldsV1 f = new FieldsV1();
    f.setAdditionalProperties(Serialization.unmarshal(fields, Map.class));
    e.setFieldsV1(f);
    return e;
  }

  @Test
  void theConditionsOwnerIsTheFieldManagerWhoseFieldsNameItsEntry() {
    ManagedFieldsEntry controller =
        managed(
            "kube-controller-manager",
            "status",
            "{\"f:status\":{\"f:currentNumberScheduled\":{},\"f:numberReady\":{}}}");
    ManagedFieldsEntry ours =
        managed(
            "stallwatch",
            "status",
            "{\"f:status\":{\"f:conditions\":{\".\":{},\"k:{\\\"type\\\":\\\"Stalled\\\"}\":"
                + "{\".\":{},\"f:status\":{},\"f:type\":{}}}}}");
    ManagedFieldsEntry flux =
        managed(
            "flux",
            "status",
            "{\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Stalled\\\"}\":{\".\":{}}}}}");
    assertThat(ConditionWrites.ownerOfCondition(List.of(controller, ours))).isEqualTo("stallwatch");
    assertThat(ConditionWrites.ownerOfCondition(List.of(controller, flux))).isEqualTo("flux");
    assertThat(ConditionWrites.ownerOfCondition(List.of(controller))).isNull();
    assertThat(ConditionWrites.ownerOfCondition(null)).isNull();
  }
}
