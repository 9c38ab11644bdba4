package dev.stallwatch.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One column of a {@code meta.k8s.io/v1} Table: its definition as kubectl reads it and how a cell
 * is computed from the object.
 *
 * @param name header (kubectl upper-cases it)
 * @param type OpenAPI type: string, integer, number, boolean, date
 * @param format OpenAPI format, "name" for the name column, else empty
 * @param priority 0 for default columns, 1 for {@code -o wide} ones
 * @param description what the column shows
 * @param value computes the cell; {@code null} is rendered by kubectl as {@code <none>}
 */
record TableColumn(
    String name, String type, String format, int priority, String description, Cell value) {

  /** Computes one cell from an object at a point in time (ages are relative to {@code now}). */
  @FunctionalInterface
  interface Cell {
    Object of(JsonNode object, Instant now);
  }

  static TableColumn of(String name, String type, String description, Cell value) {
    return new TableColumn(name, type, "", 0, description, value);
  }

  static TableColumn wide(String name, String description, Cell value) {
    return new TableColumn(name, "string", "", 1, description, value);
  }

  static TableColumn nameColumn() {
    return new TableColumn(
        "Name",
        "string",
        "name",
        0,
        "Name must be unique within a namespace.",
        (o, now) -> o.path("metadata").path("name").asText());
  }

  static TableColumn ageColumn() {
    return of(
        "Age",
        "string",
        "Time since the object was created.",
        (o, now) -> HumanAge.since(o.path("metadata").path("creationTimestamp").asText(""), now));
  }
}
