// odm's client-side cost per operation against the same operation written by hand on
// libmongoc, on the same server, in the same binary (issue 12: every operation within
// 1.05x of the hand-written code, insert_one at or below 1.0x).
//
// The model is the seed product of the subset pattern with its 10 newest reviews and a
// stock count (product.hpp): {_id: int32, name, description, price: {value: decimal,
// currency}, stock, reviews: [{review_id, review_author, review_text, published_date} x 10]}.
//
// Four operations:
//
//   insert_one   odm: Collection<Product>::insert_one(product).
//                by hand: the document built on the stack with bson_append_* (strings
//                UTF-8 validated, as odm does), mongoc_collection_insert_one with
//                libmongoc's default options (so libmongoc validates the document) and no
//                reply (the code does not read one).
//   find_by_id   odm: Collection<Product>::find_by_id(id) -> std::optional<Product>.
//                by hand: filter {_id: id} and opts {limit: 1} on the stack,
//                mongoc_collection_find_with_opts, one mongoc_cursor_next, the cursor's
//                error checked when there is no document, the document decoded by hand.
//   find_1000    odm: Collection<Product>::find().to_vector() over 1,000 products.
//                by hand: mongoc_collection_find_with_opts({}), every document decoded by
//                hand into a fresh Product moved into a std::vector<Product>.
//   update_inc   odm: update_one(field(&Product::id) == id, field(&Product::stock).inc(1)),
//                whose result says how many documents matched and changed.
//                by hand: filter and update on the stack, mongoc_collection_update_one
//                with a reply, matchedCount and modifiedCount read from it.
//
// Two hand-written baselines, the same code around two ways of holding libmongoc handles:
//
//   libmongoc         the honest one, and the one the target is measured against: one
//                     mongoc_client_t popped from a pool once and one mongoc_collection_t
//                     per collection, kept for the life of the thread (a service keeps one
//                     set per worker thread; this benchmark runs on one thread).
//   libmongoc_pooled  what odm did before issue 12: every operation pops a client from the
//                     pool, gets a new mongoc_collection_t, destroys it and pushes the
//                     client back. Shown for comparison only.
//
// Decoding by hand does what an application must do to use the data, and what odm's
// codecs check (product.hpp, codec_bench.cpp): walk the document with bson_iter, find each
// member by key, reject duplicates and missing required fields, check every BSON type,
// validate every string, check that a date is a whole day, report corrupt bytes.
//
// At startup: the hand-written encoder must produce the same bytes as odm::to_bson, both
// sides' reads must decode equal values (equal to the products inserted), both inserts
// must store the same document and both updates must add one to the stock.
//
// The server: $MONGODB_URI (the odm test server, tests/server/ctl.sh, or a mongod).
// heartbeatFrequencyMS=60000 is added to the URI when it does not set it, so that the
// pools' background monitors poll rarely during a measurement (callgrind counts every
// thread of the process). Database "odm_driver_bench"; collections "products" (1,000
// products, made once and reused while they are there), "updated" (100 products, made
// at startup), "inserted_odm", "inserted_c" and "inserted_c_pooled" (dropped at startup).
//
// Modes:
//   driver_bench [Google Benchmark flags]            the BM_* benchmarks
//   driver_bench --callgrind-case=NAME --iterations=N
//                                                    one warm-up operation of case NAME,
//                                                    then N more, and exits: for
//                                                    `valgrind --tool=callgrind` (N = 0
//                                                    gives the cost to subtract: startup,
//                                                    connection, warm-up). --list-cases
//                                                    prints the names.

#include <odm/odm.hpp>

#include <benchmark/benchmark.h>

#include "callgrind_mode.hpp"
#include "product.hpp"
#include <bson/bson.h>
#include <mongoc/mongoc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace bench_product;  // NOLINT(google-build-using-namespace): Product and its hand-written code

[[noreturn]] void fail(const char* what, const char* detail = nullptr) {
  std::fprintf(stderr, "driver_bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  std::abort();
}

constexpr const char* database_name = "odm_driver_bench";
constexpr const char* products_name = "products";
constexpr const char* updated_name = "updated";
constexpr const char* inserted_odm_name = "inserted_odm";
constexpr const char* inserted_c_name = "inserted_c";
constexpr const char* inserted_pooled_name = "inserted_c_pooled";
constexpr std::int32_t product_count = 1000;
constexpr std::int32_t updated_count = 100;

/// Product `n` of the 1,000: the seed product with its own id and varied texts.
Product numbered_product(std::int32_t n) {
  Product product = make_product(n);
  product.name += " #" + std::to_string(n);
  product.stock = n % 50;
  product.reviews[static_cast<std::size_t>(n) % product.reviews.size()].review_text += " (" + std::to_string(n) + ")";
  return product;
}

// ---------------------------------------------------------------------------------------
// The hand-written libmongoc code: each operation on a collection handle it is given.

/// Inserts `product` with libmongoc's default options (validation on) and no reply.
void insert_one_c(mongoc_collection_t* collection, const Product& product) {
  bson_t doc;
  bson_init(&doc);
  if (!append_product_fields(&doc, product)) fail("append_product_fields failed");
  bson_error_t error;
  const bool ok = mongoc_collection_insert_one(collection, &doc, nullptr, nullptr, &error);
  bson_destroy(&doc);
  if (!ok) fail("mongoc_collection_insert_one", error.message);
}

std::optional<Product> find_by_id_c(mongoc_collection_t* collection, std::int32_t id) {
  bson_t filter;
  bson_init(&filter);
  bson_append_int32(&filter, "_id", 3, id);
  bson_t opts;
  bson_init(&opts);
  bson_append_int64(&opts, "limit", 5, 1);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(collection, &filter, &opts, nullptr);
  std::optional<Product> found;
  const bson_t* doc = nullptr;
  bson_error_t error;
  if (mongoc_cursor_next(cursor, &doc)) {
    if (!decode_product_handwritten(doc, &found.emplace())) fail("decode_product_handwritten failed");
  } else if (mongoc_cursor_error(cursor, &error)) {
    fail("find by id", error.message);
  }
  mongoc_cursor_destroy(cursor);
  bson_destroy(&opts);
  bson_destroy(&filter);
  return found;
}

std::vector<Product> find_all_c(mongoc_collection_t* collection) {
  bson_t filter;
  bson_init(&filter);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(collection, &filter, nullptr, nullptr);
  std::vector<Product> products;
  const bson_t* doc = nullptr;
  while (mongoc_cursor_next(cursor, &doc)) {
    Product product{};
    if (!decode_product_handwritten(doc, &product)) fail("decode_product_handwritten failed");
    products.push_back(std::move(product));
  }
  bson_error_t error;
  if (mongoc_cursor_error(cursor, &error)) fail("find", error.message);
  mongoc_cursor_destroy(cursor);
  bson_destroy(&filter);
  return products;
}

/// {$inc: {stock: 1}} on the product `id`; returns the matched count (the modified count
/// is read too, as odm's result carries both).
std::int64_t update_inc_c(mongoc_collection_t* collection, std::int32_t id) {
  bson_t filter;
  bson_init(&filter);
  bson_append_int32(&filter, "_id", 3, id);
  bson_t update;
  bson_init(&update);
  bson_t inc;
  bson_append_document_begin(&update, "$inc", 4, &inc);
  bson_append_int32(&inc, "stock", 5, 1);
  bson_append_document_end(&update, &inc);
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_collection_update_one(collection, &filter, &update, nullptr, &reply, &error);
  std::int64_t matched = -1;
  std::int64_t modified = -1;
  bson_iter_t it;
  if (bson_iter_init_find(&it, &reply, "matchedCount")) matched = bson_iter_as_int64(&it);
  if (bson_iter_init_find(&it, &reply, "modifiedCount")) modified = bson_iter_as_int64(&it);
  bson_destroy(&reply);
  bson_destroy(&update);
  bson_destroy(&filter);
  if (!ok) fail("mongoc_collection_update_one", error.message);
  if (modified != matched) fail("update_inc_c: modifiedCount differs from matchedCount");
  return matched;
}

// ---------------------------------------------------------------------------------------
// The two ways of holding the handles.

class HandPool {
 public:
  explicit HandPool(const std::string& uri_string) {
    bson_error_t error;
    mongoc_uri_t* uri = mongoc_uri_new_with_error(uri_string.c_str(), &error);
    if (uri == nullptr) fail("invalid URI", error.message);
    // As odm's ClientState does: keep trying to select a server until the timeout.
    mongoc_uri_set_option_as_bool(uri, MONGOC_URI_SERVERSELECTIONTRYONCE, false);
    pool_ = mongoc_client_pool_new_with_error(uri, &error);
    mongoc_uri_destroy(uri);
    if (pool_ == nullptr) fail("cannot create the pool", error.message);
    mongoc_client_pool_set_error_api(pool_, MONGOC_ERROR_API_VERSION_2);
  }
  ~HandPool() { mongoc_client_pool_destroy(pool_); }
  HandPool(const HandPool&) = delete;
  HandPool& operator=(const HandPool&) = delete;
  mongoc_client_pool_t* get() const { return pool_; }

 private:
  mongoc_client_pool_t* pool_;
};

/// The honest baseline: one client and its collection handles, kept for the thread's life.
class KeptHandles {
 public:
  explicit KeptHandles(mongoc_client_pool_t* pool)
      : pool_(pool),
        client_(mongoc_client_pool_pop(pool)),
        products_(mongoc_client_get_collection(client_, database_name, products_name)),
        updated_(mongoc_client_get_collection(client_, database_name, updated_name)),
        inserted_(mongoc_client_get_collection(client_, database_name, inserted_c_name)) {}
  ~KeptHandles() {
    mongoc_collection_destroy(inserted_);
    mongoc_collection_destroy(updated_);
    mongoc_collection_destroy(products_);
    mongoc_client_pool_push(pool_, client_);
  }
  KeptHandles(const KeptHandles&) = delete;
  KeptHandles& operator=(const KeptHandles&) = delete;

  mongoc_collection_t* products() const { return products_; }
  mongoc_collection_t* updated() const { return updated_; }
  mongoc_collection_t* inserted() const { return inserted_; }

 private:
  mongoc_client_pool_t* pool_;
  mongoc_client_t* client_;
  mongoc_collection_t* products_;
  mongoc_collection_t* updated_;
  mongoc_collection_t* inserted_;
};

/// The other baseline: a client popped and a collection handle made for one operation.
class PooledHandle {
 public:
  PooledHandle(mongoc_client_pool_t* pool, const char* collection)
      : pool_(pool),
        client_(mongoc_client_pool_pop(pool)),
        collection_(mongoc_client_get_collection(client_, database_name, collection)) {}
  ~PooledHandle() {
    mongoc_collection_destroy(collection_);
    mongoc_client_pool_push(pool_, client_);
  }
  PooledHandle(const PooledHandle&) = delete;
  PooledHandle& operator=(const PooledHandle&) = delete;
  mongoc_collection_t* get() const { return collection_; }

 private:
  mongoc_client_pool_t* pool_;
  mongoc_client_t* client_;
  mongoc_collection_t* collection_;
};

// ---------------------------------------------------------------------------------------
// The environment: both clients, the products, the ids to use.

std::string server_uri() {
  const char* env = std::getenv("MONGODB_URI");
  if (env == nullptr || *env == '\0') fail("set MONGODB_URI (e.g. the uri file of tests/server/ctl.sh start DIR)");
  std::string uri = env;
  if (uri.find("heartbeatFrequencyMS") == std::string::npos && uri.find("heartbeatfrequencyms") == std::string::npos) {
    if (uri.find('?') == std::string::npos) {
      // mongodb://host[:port][/db]: a '/' is needed before the options.
      const std::size_t hosts = uri.find("://");
      if (uri.find('/', hosts == std::string::npos ? 0 : hosts + 3) == std::string::npos) uri += '/';
      uri += '?';
    } else if (uri.back() != '?' && uri.back() != '&') {
      uri += '&';
    }
    uri += "heartbeatFrequencyMS=60000";
  }
  return uri;
}

struct Env {
  std::string uri = server_uri();
  odm::Client client{uri};
  odm::Database db = client.database(database_name);
  odm::Collection<Product> products = db.collection<Product>(products_name);
  odm::Collection<Product> updated = db.collection<Product>(updated_name);
  odm::Collection<Product> inserted_odm = db.collection<Product>(inserted_odm_name);
  HandPool pool{uri};
  KeptHandles kept{pool.get()};
  Product to_insert = make_product(0);  // inserted with a new id each time
  std::int32_t next_insert_odm = 0;
  std::int32_t next_insert_c = 0;
  std::int32_t next_insert_pooled = 0;
  std::int32_t next_find = 0;
  std::int32_t next_update = 0;
  std::vector<Product> expected;  // the 1,000 products, in insertion order

  Env() {
    expected.reserve(product_count);
    for (std::int32_t n = 1; n <= product_count; ++n) expected.push_back(numbered_product(n));
  }
};

Env& env() {
  static Env instance;
  return instance;
}

bool same_products(const std::vector<Product>& a, const std::vector<Product>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!product_equal(a[i], b[i])) return false;
  return true;
}

void prepare_data(Env& e) {
  for (const char* name : {inserted_odm_name, inserted_c_name, inserted_pooled_name, updated_name})
    e.db.collection<Product>(name).drop();
  e.updated.insert_many(std::vector<Product>(e.expected.begin(), e.expected.begin() + updated_count));
  const std::optional<Product> last = e.products.find_by_id(product_count);
  if (e.products.count() != product_count || !last || !product_equal(*last, e.expected.back())) {
    e.products.drop();
    e.products.insert_many(e.expected);
  }
}

// ---------------------------------------------------------------------------------------
// The cases. Each is a separate, non-inlined function so that callgrind_annotate shows it
// (and everything it calls) as one inclusive cost.

std::int32_t next_find_id(Env& e) { return e.next_find++ % product_count + 1; }
std::int32_t next_update_id(Env& e) { return e.next_update++ % updated_count + 1; }

[[gnu::noinline]] void insert_one_odm(Env& e) {
  e.to_insert.id = ++e.next_insert_odm;
  auto result = e.inserted_odm.insert_one(std::as_const(e.to_insert));
  benchmark::DoNotOptimize(result);
}
[[gnu::noinline]] void insert_one_libmongoc(Env& e) {
  e.to_insert.id = ++e.next_insert_c;
  insert_one_c(e.kept.inserted(), e.to_insert);
}
[[gnu::noinline]] void insert_one_libmongoc_pooled(Env& e) {
  e.to_insert.id = ++e.next_insert_pooled;
  insert_one_c(PooledHandle(e.pool.get(), inserted_pooled_name).get(), e.to_insert);
}

void use(const std::optional<Product>& product, const char* what) {
  if (!product) fail(what, "found nothing");
  benchmark::DoNotOptimize(&*product);
  benchmark::ClobberMemory();
}
[[gnu::noinline]] void find_by_id_odm(Env& e) { use(e.products.find_by_id(next_find_id(e)), "find_by_id_odm"); }
[[gnu::noinline]] void find_by_id_libmongoc(Env& e) {
  use(find_by_id_c(e.kept.products(), next_find_id(e)), "find_by_id_libmongoc");
}
[[gnu::noinline]] void find_by_id_libmongoc_pooled(Env& e) {
  use(find_by_id_c(PooledHandle(e.pool.get(), products_name).get(), next_find_id(e)), "find_by_id_libmongoc_pooled");
}

void use(const std::vector<Product>& products, const char* what) {
  if (products.size() != product_count) fail(what, "wrong count");
  benchmark::DoNotOptimize(products.data());
  benchmark::ClobberMemory();
}
[[gnu::noinline]] void find_1000_odm(Env& e) { use(e.products.find().to_vector(), "find_1000_odm"); }
[[gnu::noinline]] void find_1000_libmongoc(Env& e) { use(find_all_c(e.kept.products()), "find_1000_libmongoc"); }
[[gnu::noinline]] void find_1000_libmongoc_pooled(Env& e) {
  use(find_all_c(PooledHandle(e.pool.get(), products_name).get()), "find_1000_libmongoc_pooled");
}

void use_matched(std::int64_t matched, const char* what) {
  if (matched != 1) fail(what, "matched no document");
  benchmark::DoNotOptimize(matched);
}
[[gnu::noinline]] void update_inc_odm(Env& e) {
  const auto result = e.updated.update_one(odm::field(&Product::id) == next_update_id(e),
                                           odm::field(&Product::stock).inc(1));
  if (result.modified != result.matched) fail("update_inc_odm", "modified differs from matched");
  use_matched(result.matched, "update_inc_odm");
}
[[gnu::noinline]] void update_inc_libmongoc(Env& e) {
  use_matched(update_inc_c(e.kept.updated(), next_update_id(e)), "update_inc_libmongoc");
}
[[gnu::noinline]] void update_inc_libmongoc_pooled(Env& e) {
  use_matched(update_inc_c(PooledHandle(e.pool.get(), updated_name).get(), next_update_id(e)),
              "update_inc_libmongoc_pooled");
}

/// The kept-handle baseline with the hand-written decoder's UTF-8 validation off
/// (libbson's own checks only): odm validates every string it reads, so this is the
/// stricter comparison, as codec_bench's "plain" cases.
template <void (*Run)(Env&)>
[[gnu::noinline]] void plain(Env& e) {
  validate_utf8 = false;
  Run(e);
  validate_utf8 = true;
}

struct Case {
  const char* name;
  void (*run)(Env&);
};

constexpr Case cases[] = {
    {"insert_one_odm", insert_one_odm},
    {"insert_one_libmongoc", insert_one_libmongoc},
    {"insert_one_libmongoc_pooled", insert_one_libmongoc_pooled},
    {"find_by_id_odm", find_by_id_odm},
    {"find_by_id_libmongoc", find_by_id_libmongoc},
    {"find_by_id_libmongoc_pooled", find_by_id_libmongoc_pooled},
    {"find_by_id_libmongoc_plain", plain<find_by_id_libmongoc>},
    {"find_1000_odm", find_1000_odm},
    {"find_1000_libmongoc", find_1000_libmongoc},
    {"find_1000_libmongoc_pooled", find_1000_libmongoc_pooled},
    {"find_1000_libmongoc_plain", plain<find_1000_libmongoc>},
    {"update_inc_odm", update_inc_odm},
    {"update_inc_libmongoc", update_inc_libmongoc},
    {"update_inc_libmongoc_pooled", update_inc_libmongoc_pooled},
};

// ---------------------------------------------------------------------------------------
// Startup checks.

void check_equivalence(Env& e) {
  for (const Product& product : {e.expected.front(), e.expected.back(), e.to_insert}) {
    const odm::Document by_odm = odm::to_bson(product);
    bson_t by_hand;
    bson_init(&by_hand);
    if (!append_product_fields(&by_hand, product)) fail("append_product_fields failed");
    const bool same = by_hand.len == by_odm.get()->len &&
                      std::memcmp(bson_get_data(&by_hand), bson_get_data(by_odm.get()), by_hand.len) == 0;
    if (!same) {
      char* a = bson_as_canonical_extended_json(by_odm.get(), nullptr);
      char* b = bson_as_canonical_extended_json(&by_hand, nullptr);
      std::fprintf(stderr, "odm:  %s\nhand: %s\n", a, b);
      bson_free(a);
      bson_free(b);
      fail("odm::to_bson and the hand-written encoder produce different bytes");
    }
    bson_destroy(&by_hand);
  }
  for (std::int32_t id : {1, 2, 3, product_count}) {
    const std::optional<Product> by_odm = e.products.find_by_id(id);
    const std::optional<Product> by_hand = find_by_id_c(e.kept.products(), id);
    const std::optional<Product> by_pooled = find_by_id_c(PooledHandle(e.pool.get(), products_name).get(), id);
    const Product& want = e.expected[static_cast<std::size_t>(id - 1)];
    if (!by_odm || !by_hand || !by_pooled || !product_equal(*by_odm, want) || !product_equal(*by_hand, want) ||
        !product_equal(*by_pooled, want))
      fail("find_by_id: odm and libmongoc decode different products");
  }
  if (e.products.find_by_id(product_count + 1) || find_by_id_c(e.kept.products(), product_count + 1))
    fail("find_by_id: a missing id was found");
  if (!same_products(e.products.find().to_vector(), e.expected) || !same_products(find_all_c(e.kept.products()), e.expected))
    fail("find: odm and libmongoc decode different products");
  // Both inserts store the same document.
  Product probe = e.to_insert;
  probe.id = -1;
  e.inserted_odm.insert_one(probe);
  insert_one_c(e.kept.inserted(), probe);
  const auto in_c = e.db.collection<Product>(inserted_c_name).find_by_id(-1);
  const auto in_odm = e.inserted_odm.find_by_id(-1);
  if (!in_odm || !in_c || !product_equal(*in_odm, probe) || !product_equal(*in_c, probe))
    fail("insert_one: the stored products differ");
  // Both updates add one to the stock.
  const std::int32_t before = e.updated.get_by_id(1).stock;
  if (e.updated.update_one(odm::field(&Product::id) == 1, odm::field(&Product::stock).inc(1)).matched != 1 ||
      update_inc_c(e.kept.updated(), 1) != 1 || e.updated.get_by_id(1).stock != before + 2)
    fail("update_one: the stock did not grow by one per update");
}

// ---------------------------------------------------------------------------------------
// Google Benchmark.

void run_benchmark(benchmark::State& state, void (*run)(Env&)) {
  Env& e = env();
  for (auto _ : state) run(e);
}

}  // namespace

int main(int argc, char** argv) {
  const CallgrindMode mode = take_callgrind_flags(argc, argv);
  if (mode.list_cases) {
    for (const Case& c : cases) std::printf("%s\n", c.name);
    return 0;
  }

  Env& e = env();
  try {
    prepare_data(e);
    check_equivalence(e);
  } catch (const std::exception& error) {
    fail("setup failed", error.what());
  }

  if (mode.case_name != nullptr) {
    if (mode.iterations < 0) {
      std::fprintf(stderr, "driver_bench: --callgrind-case needs --iterations=N (N >= 0)\n");
      return 2;
    }
    for (const Case& c : cases) {
      if (std::strcmp(c.name, mode.case_name) != 0) continue;
      c.run(e);  // warm-up: the first operation of the measured kind, in both runs
      for (long i = 0; i < mode.iterations; ++i) c.run(e);
      return 0;
    }
    std::fprintf(stderr, "driver_bench: unknown case \"%s\" (see --list-cases)\n", mode.case_name);
    return 2;
  }

  for (const Case& c : cases) benchmark::RegisterBenchmark((std::string("BM_") + c.name).c_str(), run_benchmark, c.run);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
