package dev.stallwatch.kube.dump;

import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.DaemonSetView;
import dev.stallwatch.rollout.EventView;
import dev.stallwatch.rollout.NodeIndex;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.rollout.RevisionView;
import dev.stallwatch.rollout.RolloutSnapshot;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/** A dump's objects grouped into what the analyzer judges: one snapshot per DaemonSet. */
public final class DumpSnapshots {
  private DumpSnapshots() {}

  /**
   * One snapshot per DaemonSet of a dump. An object that cannot be read is left out and reported in
   * {@link Grouped#errors()} (prefixed with where it came from); the others are still grouped.
   */
  public static Grouped group(Dump dump) {
    // Pods and nodes were turned into views while reading; those that could not be come first,
    // as they always did.
    List<String> errors = new ArrayList<>(dump.invalidPods());
    errors.addAll(dump.invalidNodes());
    List<Namespaced<PodView>> pods = new ArrayList<>(dump.pods().size());
    for (Dump.Entry<PodView> entry : dump.pods()) {
      pods.add(new Namespaced<>(entry.object().namespace(), entry.object()));
    }
    Set<String> unreadableNodes = new TreeSet<>(dump.unreadableNodes());
    List<Namespaced<RevisionView>> revisions = views(dump.revisions(), KubeViews::revision, errors);
    List<Namespaced<EventView>> events = views(dump.events(), KubeViews::event, errors);
    // One node index for every DaemonSet of the dump.
    NodeIndex allNodes = NodeIndex.of(dump.nodes().stream().map(Dump.Entry::object).toList());
    List<RolloutSnapshot> snapshots = new ArrayList<>();
    for (Dump.Entry<DaemonSet> entry : dump.daemonSets()) {
      DaemonSetView ds;
      try {
        ds = KubeViews.daemonSet(entry.object());
      } catch (InvalidObjectException e) {
        errors.add(entry.origin() + ": " + e.getMessage());
        continue;
      }
      snapshots.add(
          new RolloutSnapshot(
              ds,
              inNamespace(pods, ds.namespace()),
              allNodes,
              inNamespace(revisions, ds.namespace()),
              unreadableNodes,
              dump.podsRead() > 0,
              inNamespace(events, ds.namespace())));
    }
    return new Grouped(snapshots, errors);
  }

  /** The snapshots of a dump and the errors of the objects left out. */
  public record Grouped(List<RolloutSnapshot> snapshots, List<String> errors) {
    public Grouped {
      snapshots = List.copyOf(snapshots);
      errors = List.copyOf(errors);
    }
  }

  /** A view with the namespace of the object it came from (views of revisions carry none). */
  private record Namespaced<V>(String namespace, V view) {}

  private static <V> List<V> inNamespace(List<Namespaced<V>> views, String ns) {
    return views.stream().filter(v -> v.namespace().equals(ns)).map(Namespaced::view).toList();
  }

  private static <T extends HasMetadata, V> List<Namespaced<V>> views(
      List<Dump.Entry<T>> entries, Function<T, V> view, List<String> errors) {
    List<Namespaced<V>> out = new ArrayList<>();
    for (Dump.Entry<T> entry : entries) {
      try {
        V v = view.apply(entry.object());
        out.add(
            new Namespaced<>(Objects.toString(entry.object().getMetadata().getNamespace(), ""), v));
      } catch (InvalidObjectException e) {
        errors.add(entry.origin() + ": " + e.getMessage());
      }
    }
    return out;
  }
}
