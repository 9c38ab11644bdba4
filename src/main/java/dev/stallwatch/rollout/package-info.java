/**
 * The rollout analyzer: a pure function from a snapshot of one DaemonSet (its pods, the nodes, its
 * ControllerRevisions) and an evaluation instant to a {@link
 * dev.stallwatch.rollout.RolloutVerdict}.
 *
 * <p>This package imports only {@code java.*} and its own types: no Kubernetes client, no clock, no
 * I/O. Callers translate API objects into the small immutable views defined here (see {@code
 * dev.stallwatch.kube}) and pass {@code now} explicitly. Counting follows the upstream DaemonSet
 * controller ({@code pkg/controller/daemon}); the stall rules follow the product's vocabulary.
 */
package dev.stallwatch.rollout;
