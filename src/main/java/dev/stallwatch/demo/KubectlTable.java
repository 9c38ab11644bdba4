package dev.stallwatch.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code kubectl get} prints: asks the API server for a {@code meta.k8s.io} Table (the
 * server-side printing kubectl uses) and lays it out as kubectl does, upper-case headers and
 * columns padded by three spaces. Only the columns of priority 0, as without {@code -o wide}.
 */
final class KubectlTable {
  private static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newHttpClient();
  private final String server;

  KubectlTable(String server) {
    this.server = server;
  }

  /**
   * The lines of {@code kubectl get} for a collection path such as {@code
   * /apis/apps/v1/namespaces/gpu-operator/daemonsets}; with {@code allNamespaces} a NAMESPACE
   * column comes first, as with {@code -A}.
   */
  List<String> get(String path, boolean allNamespaces) {
    JsonNode table = fetch(path);
    List<Integer> shown = new ArrayList<>();
    List<String> header = new ArrayList<>();
    if (allNamespaces) {
      header.add("NAMESPACE");
    }
    JsonNode columns = table.path("columnDefinitions");
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).path("priority").asInt(0) == 0) {
        shown.add(i);
        header.add(columns.get(i).path("name").asText().toUpperCase(Locale.ROOT));
      }
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(header);
    for (JsonNode row : table.path("rows")) {
      List<String> cells = new ArrayList<>();
      if (allNamespaces) {
        cells.add(row.path("object").path("metadata").path("namespace").asText(""));
      }
      for (int i : shown) {
        JsonNode cell = row.path("cells").path(i);
        cells.add(cell.isNull() || cell.isMissingNode() ? "<none>" : cell.asText());
      }
      rows.add(cells);
    }
    if (rows.size() == 1) {
      return List.of("No resources found.");
    }
    return align(rows);
  }

  private static List<String> align(List<List<String>> rows) {
    int[] widths = new int[rows.get(0).size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        line.append(row.get(i));
        if (i < row.size() - 1) {
          line.append(" ".repeat(widths[i] - row.get(i).length() + 3));
        }
      }
      lines.add(line.toString().stripTrailing());
    }
    return lines;
  }

  private JsonNode fetch(String path) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(server + path)).header("Accept", TABLE).build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "GET " + path + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IllegalStateException("GET " + path + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + path, e);
    }
  }
}
