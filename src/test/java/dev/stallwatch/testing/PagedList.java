package dev.stallwatch.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A large collection served page by page on the embedded API server, as kube-apiserver serves a
 * list with {@code limit} and {@code continue}: generated items, then the ones the store holds (a
 * test's later writes: an object of the same key replaces the generated one). The store itself
 * holds none of the generated items (the mock server would build one string of them all for every
 * list), so watches see only what the test writes afterwards; the list's resourceVersion is the
 * store's, which a watch then starts from.
 *
 * <p>Each page is an expectation for its exact request path (fabric8 sorts the query's parameters);
 * the first one is answered late if asked, as an API server under load may. The mock server answers
 * on one thread, so a late page holds every other request back meanwhile.
 */
public final class PagedList {
  private final int count;
  private final IntFunction<String> key;
  private final IntFunction<String> json;
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Supplier<String> stored;
  private final long limit;
  private final Duration pageDelay;
  private final AtomicInteger pagesServed = new AtomicInteger();
  private final AtomicInteger listsCompleted = new AtomicInteger();

  /**
   * Serves the list at {@code path} (e.g. {@code /api/v1/pods}) asked with {@code params} and
   * {@code limit}.
   *
   * @param count how many items are generated
   * @param key an item's {@code namespace/name} (or {@code name})
   * @param json an item's JSON
   * @param stored the store's own list at that path, in JSON (its items and resourceVersion), read
   *     without HTTP: a page is answered on the server's thread
   * @param pageDelay how long the first page takes to answer (an API server under load)
   */
  public PagedList(
      KubernetesMockServer server,
      String path,
      Map<String, String> params,
      long limit,
      int count,
      IntFunction<String> key,
      IntFunction<String> json,
      Supplier<String> stored,
      Duration pageDelay) {
    this.count = count;
    this.key = key;
    this.json = json;
    this.stored = stored;
    this.limit = limit;
    this.pageDelay = pageDelay;
    int pages = Math.max(1, (int) ((count + limit - 1) / limit));
    for (int page = 0; page < pages; page++) {
      Map<String, String> query = new TreeMap<>(params);
      query.put("limit", String.valueOf(limit));
      if (page > 0) {
        query.put("continue", token(page));
      }
      int p = page;
      server
          .expect()
          .get()
          .withPath(path + "?" + queryString(query))
          .andReply(200, request -> page(p, pages))
          .always();
    }
  }

  /** Pages answered so far. */
  public int pagesServed() {
    return pagesServed.get();
  }

  /** Lists answered to their last page so far. */
  public int listsCompleted() {
    return listsCompleted.get();
  }

  private static String token(int page) {
    return "page-" + page;
  }

  private static String queryString(Map<String, String> query) {
    return query.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining("&"));
  }

  private String page(int page, int pages) {
    if (page == 0 && !pageDelay.isZero()) {
      try {
        Thread.sleep(pageDelay.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    boolean last = page == pages - 1;
    JsonNode live;
    try {
      live = JSON.readTree(stored.get());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the store's list is not JSON", e);
    }
    Set<String> replaced = new HashSet<>();
    for (JsonNode o : live.path("items")) {
      String ns = o.path("metadata").path("namespace").asText("");
      String name = o.path("metadata").path("name").asText();
      replaced.add(ns.isEmpty() ? name : ns + "/" + name);
    }
    StringBuilder body = new StringBuilder(1 << 20);
    body.append("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"")
        .append(live.path("metadata").path("resourceVersion").asText())
        .append('"');
    if (!last) {
      body.append(",\"continue\":\"").append(token(page + 1)).append('"');
    }
    body.append("},\"items\":[");
    boolean first = true;
    int end = (int) Math.min(count, (page + 1) * limit);
    for (int i = (int) (page * limit); i < end; i++) {
      if (replaced.contains(key.apply(i))) {
        continue;
      }
      body.append(first ? "" : ",").append(json.apply(i));
      first = false;
    }
    if (last) {
      for (JsonNode o : live.path("items")) {
        body.append(first ? "" : ",").append(o);
        first = false;
      }
      listsCompleted.incrementAndGet();
    }
    pagesServed.incrementAndGet();
    return body.append("]}").toString();
  }
}
