package dev.stallwatch.sim;

import java.util.ArrayList;
import java.util.List;

/** What one pass of the controller wants done: nodes to give a new pod, pods to delete. */
record SyncPlan(List<String> nodesToCreate, List<String> podsToDelete) {

  SyncPlan {
    nodesToCreate = List.copyOf(nodesToCreate);
    podsToDelete = List.copyOf(podsToDelete);
  }

  static SyncPlan of(List<String> create, List<String> delete) {
    return new SyncPlan(create, delete);
  }

  boolean isEmpty() {
    return nodesToCreate.isEmpty() && podsToDelete.isEmpty();
  }

  SyncPlan plus(SyncPlan other) {
    List<String> c = new ArrayList<>(nodesToCreate);
    c.addAll(other.nodesToCreate);
    List<String> d = new ArrayList<>(podsToDelete);
    d.addAll(other.podsToDelete);
    return new SyncPlan(c, d);
  }
}
