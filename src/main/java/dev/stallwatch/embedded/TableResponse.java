package dev.stallwatch.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;

/**
 * Renders objects as a {@code meta.k8s.io/v1} Table, the server-side printing {@code kubectl get}
 * asks for with {@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io}.
 */
final class TableResponse {

  /** What each row carries besides its cells ({@code ?includeObject=}). */
  enum IncludeObject {
    NONE,
    METADATA,
    OBJECT;

    static IncludeObject of(String param) {
      return switch (param == null ? "" : param) {
        case "None" -> NONE;
        case "Object" -> OBJECT;
        default -> METADATA;
      };
    }
  }

  private final ObjectMapper mapper;

  TableResponse(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** True when the Accept header asks for a meta.k8s.io Table. */
  static boolean isRequested(String accept) {
    return accept != null && accept.contains("as=Table") && accept.contains("g=meta.k8s.io");
  }

  /**
   * The table for a list body ({@code items}) or a single object body.
   *
   * @param body JSON as the CRUD store returned it
   */
  ObjectNode render(JsonNode body, List<TableColumn> columns, IncludeObject include, Instant now) {
    ObjectNode table = mapper.createObjectNode();
    table.put("kind", "Table");
    table.put("apiVersion", "meta.k8s.io/v1");
    ObjectNode metadata = table.putObject("metadata");
    String rv = body.path("metadata").path("resourceVersion").asText("");
    if (!rv.isEmpty()) {
      metadata.put("resourceVersion", rv);
    }
    ArrayNode definitions = table.putArray("columnDefinitions");
    for (TableColumn c : columns) {
      definitions
          .addObject()
          .put("name", c.name())
          .put("type", c.type())
          .put("format", c.format())
          .put("description", c.description())
          .put("priority", c.priority());
    }
    ArrayNode rows = table.putArray("rows");
    JsonNode items = body.has("items") ? body.get("items") : mapper.createArrayNode().add(body);
    for (JsonNode item : items) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      for (TableColumn c : columns) {
        cells.add(mapper.valueToTree(c.value().of(item, now)));
      }
      switch (include) {
        case OBJECT -> row.set("object", item);
        case METADATA -> row.set("object", partialMetadata(item));
        case NONE -> {}
      }
    }
    return table;
  }

  private ObjectNode partialMetadata(JsonNode item) {
    ObjectNode partial = mapper.createObjectNode();
    partial.put("kind", "PartialObjectMetadata");
    partial.put("apiVersion", "meta.k8s.io/v1");
    partial.set("metadata", item.path("metadata").deepCopy());
    return partial;
  }
}
