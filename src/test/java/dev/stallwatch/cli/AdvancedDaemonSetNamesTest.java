package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.report.TableReport;
import dev.stallwatch.rollback.DaemonSetApi;
import dev.stallwatch.testing.AdvancedDaemonSetWorld;
import dev.stallwatch.testing.AdvancedDaemonSetWorld.Pod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * How the CLI names the two kinds of DaemonSet: kubectl's qualified forms on the command line, the
 * API a record of the operator must name, and the NAME column, which keeps an Advanced DaemonSet's
 * name whole when it is cut.
 */
class AdvancedDaemonSetNamesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

  @TempDir Path tmp;

  static DaemonSetName parse(String text) {
    return new DaemonSetName.Converter().convert(text);
  }

  @Test
  void kubectlsFormsNameTheirKindABareNameEither() {
    for (String apps :
        new String[] {
          "ds/agent", "daemonset/agent", "daemonsets.apps/agent", "daemonset.apps/agent"
        }) {
      assertThat(parse(apps)).as(apps).isEqualTo(new DaemonSetName("agent", DaemonSetApi.APPS_V1));
    }
    for (String advanced :
        new String[] {
          "daemonset.apps.kruise.io/agent",
          "daemonsets.apps.kruise.io/agent",
          "DaemonSets.apps.kruise.io/agent",
          "daemonsets.v1beta1.apps.kruise.io/agent"
        }) {
      assertThat(parse(advanced))
          .as(advanced)
          .isEqualTo(new DaemonSetName("agent", DaemonSetApi.ADVANCED));
    }
    DaemonSetName bare = parse("agent");
    assertThat(bare.api()).isNull();
    assertThat(bare.allows(DaemonSetApi.APPS_V1)).isTrue();
    assertThat(bare.allows(DaemonSetApi.ADVANCED)).isTrue();
    assertThat(parse("daemonset.apps.kruise.io/agent").qualified())
        .isEqualTo("daemonset.apps.kruise.io/agent");
    assertThat(bare.qualified()).isEqualTo("daemonset.apps/agent");
    assertThatThrownBy(() -> parse("statefulsets.apps.kruise.io/agent"))
        .isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessage(
            "\"statefulsets.apps.kruise.io/agent\" is not a DaemonSet; use ds/NAME or"
                + " daemonset.apps.kruise.io/NAME");
  }

  @Test
  void aRecordIsTheDaemonSetsOnlyWhenItNamesItsApiGroup() {
    assertThat(OperatorRecord.sameApi(null, "apps/v1")).isTrue();
    assertThat(OperatorRecord.sameApi("apps/v1", "apps/v1")).isTrue();
    assertThat(OperatorRecord.sameApi(null, "apps.kruise.io/v1beta1")).isFalse();
    assertThat(OperatorRecord.sameApi("apps/v1", "apps.kruise.io/v1beta1")).isFalse();
    assertThat(OperatorRecord.sameApi("apps.kruise.io/v1beta1", "apps/v1")).isFalse();
    assertThat(OperatorRecord.sameApi("apps.kruise.io/v1beta1", "apps.kruise.io/v1alpha1"))
        .isTrue();
  }

  @Test
  void aCutNameColumnShortensTheQualifierBeforeTheName() throws IOException {
    String row = summaryRow("gpu-feature-discovery");
    String longer = summaryRow("nvidia-container-toolkit-daemonset");

    assertThat(row.length()).isLessThanOrEqualTo(TableReport.WIDTH);
    assertThat(row).matches("kruise +daemonset…/gpu-feature-discovery +3 .* Complete -");
    // a name too long for the column still starts where a person looks for it
    assertThat(longer.length()).isLessThanOrEqualTo(TableReport.WIDTH);
    assertThat(longer).matches("kruise +…/nvidia-container-toolkit-\\S*… +3 .* Complete -");
  }

  /** {@code diagnose}'s summary row of a Complete Advanced DaemonSet named {@code name}. */
  private String summaryRow(String name) throws IOException {
    AdvancedDaemonSetWorld world =
        new AdvancedDaemonSetWorld(
            "apps.kruise.io/v1beta1", NOW, Pod.NEW_READY, Pod.NEW_READY, Pod.NEW_READY);
    ((ObjectNode) world.ds.get("metadata")).put("name", name);
    Path dump =
        Files.writeString(tmp.resolve(name + ".json"), JSON.writeValueAsString(world.dump()));
    CliRun run = CliRun.of("diagnose", "-f", dump.toString(), "--now", NOW.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    return run.out().lines().skip(1).findFirst().orElseThrow();
  }
}
