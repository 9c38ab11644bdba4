package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NEW;
import static dev.stallwatch.rollout.Views.OLD;
import static dev.stallwatch.rollout.Views.ds;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which revision is new, which old, and how each is named — with and without ControllerRevisions.
 */
class RevisionSplitTest {

  static Stream<Arguments> rows() {
    PodView newPod = pod("n1", "new").build();
    PodView oldPod = pod("n2", "old").build();
    return Stream.of(
        // name, revisions, pods, new described, old described
        Arguments.of(
            "both revisions recorded",
            List.of(OLD, NEW),
            List.of(newPod, oldPod),
            "2 (new)",
            "1 (old)"),
        Arguments.of(
            "the template matches revision 2 even when a higher one exists",
            List.of(
                OLD,
                NEW,
                Views.revision(
                    "other", 3, Views.template("img:3", java.util.Map.of()), Views.ago(5))),
            List.of(newPod, oldPod),
            "2 (new)",
            "1 (old)"),
        Arguments.of(
            "no ControllerRevision: hashes from the pods' labels",
            List.of(),
            List.of(newPod, oldPod),
            "new (template generation 2; its ControllerRevision is not in the input)",
            "old (template generation 1; its ControllerRevision is not in the input)"),
        Arguments.of(
            "no ControllerRevision and no new pod yet",
            List.of(),
            List.of(oldPod),
            "of template generation 2 (its ControllerRevision is not in the input)",
            "old (template generation 1; its ControllerRevision is not in the input)"),
        Arguments.of(
            "no pod on the old revision: the one before the new",
            List.of(OLD, NEW),
            List.of(newPod),
            "2 (new)",
            "1 (old)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void newAndOldAreNamedNeverWithAQuestionMark(
      String name, List<RevisionView> revisions, List<PodView> pods, String newer, String older) {
    RevisionSplit split = RevisionSplit.of(ds(), revisions, pods);

    assertThat(split.newSummary().describe()).isEqualTo(newer).doesNotContain("?");
    assertThat(split.oldSummary().describe()).isEqualTo(older).doesNotContain("?");
    assertThat(split.isNew(pod("n3", "new").build())).isTrue();
    assertThat(split.isNew(pod("n3", "old").build())).isFalse();
  }

  static Stream<Arguments> earlier() {
    PodView newPod = pod("n1", "new").build();
    PodView oldPod = pod("n2", "old").build();
    return Stream.of(
        // name, revisions, pods, nothing earlier
        Arguments.of("the first revision, every pod on it", List.of(NEW), List.of(newPod), true),
        Arguments.of("the first revision, no pod yet", List.of(NEW), List.of(), true),
        Arguments.of("an older revision recorded", List.of(OLD, NEW), List.of(newPod), false),
        Arguments.of(
            "a pod on a revision the history no longer holds",
            List.of(NEW),
            List.of(newPod, oldPod),
            false),
        Arguments.of("no ControllerRevision: cannot tell", List.of(), List.of(newPod), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("earlier")
  void nothingEarlierOnlyWhenTheRevisionsSaySo(
      String name, List<RevisionView> revisions, List<PodView> pods, boolean nothingEarlier) {
    assertThat(RevisionSplit.of(ds(), revisions, pods).nothingEarlier()).isEqualTo(nothingEarlier);
  }
}
