package dev.stallwatch.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A custom resource's table from its CRD's additionalPrinterColumns. As on a real API server the
 * CRD's columns replace the default AGE column; {@code date} columns are shown as ages.
 */
final class CustomResourceColumns {

  private CustomResourceColumns() {}

  static List<TableColumn> of(List<CustomResourceColumnDefinition> definitions) {
    List<TableColumn> columns = new ArrayList<>();
    columns.add(TableColumn.nameColumn());
    for (CustomResourceColumnDefinition d : definitions) {
      JsonPathReader path = JsonPathReader.compile(d.getJsonPath());
      String type = Objects.requireNonNullElse(d.getType(), "string");
      columns.add(
          new TableColumn(
              d.getName(),
              type,
              Objects.requireNonNullElse(d.getFormat(), ""),
              d.getPriority() == null ? 0 : d.getPriority(),
              Objects.requireNonNullElse(d.getDescription(), ""),
              (o, now) -> cell(path.read(o), type, now)));
    }
    return columns;
  }

  private static Object cell(JsonNode value, String type, java.time.Instant now) {
    if (value == null || value.isNull() || value.isMissingNode()) {
      return null;
    }
    return switch (type) {
      case "date" -> HumanAge.since(value.asText(), now);
      case "integer" -> value.canConvertToLong() ? value.asLong() : value.asText();
      case "number" -> value.isNumber() ? value.numberValue() : value.asText();
      case "boolean" -> value.isBoolean() ? value.asBoolean() : value.asText();
      default -> value.isValueNode() ? value.asText() : value.toString();
    };
  }
}
