/**
 * Rolling a DaemonSet back to an earlier ControllerRevision: which revisions it has ({@link
 * dev.stallwatch.rollback.RevisionHistory}), how the template is restored ({@link
 * dev.stallwatch.rollback.RevisionRestorer}, shared by {@code stallwatch undo} and the operator)
 * and when the operator may do it on its own ({@link dev.stallwatch.rollback.RollbackPolicy}).
 */
package dev.stallwatch.rollback;
