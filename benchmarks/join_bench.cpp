// Joins and subset maintenance (issue 4, Performance). Benchmarks, not timed tests.
//
//   books    odm::resolve(db, books, odm::with(&Book::publisher_id)): 10,000 books (loaded and
//            decoded once, copied before every iteration) pointing at 100 publishers.
//   parts    odm::resolve(db, products, odm::with(&Product::parts)): one product with
//            N RefMany<Part> ids, all of them stored: N = 2,000 by default (--parts=N; see
//            Settings::parts for why not 100,000 against the odm test server), and 100,000
//            for the client-only cases *_parts_100k, built in memory.
//   orders   odm::resolve(db, orders, odm::with(&Order::items, odm::with(&LineItem::product))):
//            1,000 orders of 5 embedded line items each, pointing at 200 products (a path
//            through embedded documents, issue 13 item 3).
//   subset   odm::subset::add(db, &ReviewedProduct::reviews, 1, review): 1,000 reviews added
//            to one product (Subset<Review, 10, &Review::published_date>).
//
// For books, parts and orders the client-side cost is split three ways:
//   resolve_X       the whole odm::resolve (libmongoc, decoding, and the join's own work);
//   decode_X        odm::from_bson of exactly the documents resolve fetches (captured once
//                   as odm::Document from the same `$in` finds), into a reserved vector, as
//                   detail::fetch_where_in does;
//   decode_books    odm::from_bson of the 10,000 books themselves: the documents whose
//                   references the join visits, fetched by the same operation
//                   (books.find(...).with(&Book::publisher_id)) before the join starts;
//   join_work_X     the join's own work: the steps of odm::with's lambda (join/join.hpp)
//                   other than the fetch, fed with the targets fetched once: gathering the
//                   distinct ids (detail::GatheredIds), detail::in_filters (building the
//                   $in queries), sharing (one block the targets alias) and assigning.
//                   For orders, also collecting the embedded line items of every order
//                   (detail::embedded_set, step_look_inside).
//                   The steps are a line-by-line copy of the lambda (step_* below, each
//                   [[gnu::noinline]] so that callgrind_annotate --inclusive=yes shows them
//                   apart); they call odm's own detail::for_each_reference_id,
//                   detail::in_filters, detail::share_targets, detail::assign_targets.
//                   The copy of the documents (and of the targets) made before each
//                   iteration is outside the measurement, as is destroying the result.
//
// Server-side joins (issue 13 item 4): the same books and orders joined by odm::find_joined,
// on the client (one find per level) and on the server (one aggregate with $lookup):
//   query_{client,server}_{books,orders}  the whole find_joined: the query, libmongoc,
//                   decoding and the join (the server's work is not the client's CPU);
//   lookup_join_work_orders  the $lookup form's client work after the aggregate, fed with
//                   its result rows (captured once): reading the targets out of the rows
//                   (detail::collect_lookups), then the join with them (gathering, each
//                   distinct target's id read from every row that carries it, the distinct
//                   targets decoded once, sharing, assigning); the orders themselves are
//                   decoded before (decode_orders measures that). Minus decode_order_products,
//                   it is the join's own work of the $lookup form.
//   --report-queries also prints the bytes each form receives (the replies' documents).
//
// The data lives in database "odm_join_bench" (--db=NAME); it is inserted when the stored
// counts do not match (the first run against a fresh server) and reused afterwards.
//
// Modes:
//   join_bench --uri=URI [Google Benchmark flags]    the BM_* benchmarks (ns: the CPU time of
//                                                    the calling thread is the client side;
//                                                    real time includes the server)
//   join_bench --uri=URI --setup                     only inserts the data
//   join_bench --uri=URI --report-queries            the commands each operation sends
//                                                    (counted with on_command_started), checked
//   join_bench --uri=URI --callgrind-case=NAME --iterations=N
//                                                    runs one case N times with callgrind's
//                                                    collection switched on around the measured
//                                                    code only (run valgrind with
//                                                    --collect-atstart=no); --list-cases
// The URI may also come from $ODM_BENCH_URI.

#include <odm/join/join.hpp>
#include <odm/join/lookup.hpp>
#include <odm/join/subset.hpp>
#include <odm/odm.hpp>

#include <benchmark/benchmark.h>
#include <bson/bson.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define JOIN_BENCH_COLLECT() CALLGRIND_TOGGLE_COLLECT
#else
#define JOIN_BENCH_COLLECT() ((void)0)
#endif

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "join_bench: %s\n", what.c_str());
  std::exit(1);
}

// ---------------------------------------------------------------------------------------
// The models (those of tests/join).

struct Publisher {
  std::string id;
  std::string name;
  std::int32_t founded = 0;
  std::string location;
  struct odm_model {
    static constexpr std::string_view collection = "publisher";
  };
};

struct Book {
  std::int64_t id = 0;
  std::string title;
  odm::Ref<Publisher> publisher_id;
  struct odm_model {
    static constexpr std::string_view collection = "books";
  };
};

struct Part {
  odm::ObjectId id;
  std::string partno;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "parts";
  };
};

struct Product {
  odm::ObjectId id;
  std::string name;
  odm::RefMany<Part> parts;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

struct CatalogProduct {
  std::int64_t id = 0;
  std::string name;
  std::string sku;
  std::int32_t stock = 0;
  struct odm_model {
    static constexpr std::string_view collection = "catalog_products";
  };
};

struct LineItem {
  odm::Ref<CatalogProduct> product;
  std::int32_t quantity = 0;
  std::string note;
};

struct Order {
  std::int64_t id = 0;
  std::string customer;
  std::vector<odm::Embedded<LineItem>> items;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

struct ReviewedProduct;

struct Review {
  std::int32_t review_id = 0;
  odm::ParentRef<ReviewedProduct> product_id;
  std::string review_author;
  std::string review_text;
  sys_days published_date{};
  struct odm_model {
    static constexpr std::string_view collection = "review";
    static constexpr auto key = &Review::review_id;
  };
};

struct ReviewedProduct {
  std::int32_t id = 0;
  std::string name;
  odm::Subset<Review, 10, &Review::published_date> reviews;
  struct odm_model {
    static constexpr std::string_view collection = "product";
  };
};

// ---------------------------------------------------------------------------------------
// Settings and the command counter.

struct Settings {
  std::string uri;
  std::string db = "odm_join_bench";
  std::size_t books = 10'000;
  std::size_t publishers = 100;
  // Parts stored on the server. The odm test server (tests/server) matches `_id: {$in: [...]}`
  // by scanning every document against the whole list, so a find costs parts x ids: 10,000
  // parts take 85 s per find, 100,000 would take hours. Against it the server-backed parts
  // case uses 2,000 parts (--parts=N; use 100,000 against a real mongod), and the
  // client-only cases (decode_parts_100k, join_work_parts_100k) use 100,000 parts built in
  // memory: the same documents as the server would send them (--offline-parts=N).
  std::size_t parts = 2'000;
  std::size_t offline_parts = 100'000;
  std::size_t orders = 1'000;
  std::size_t items_per_order = 5;
  std::size_t catalog_products = 200;
};
Settings settings;

/// Commands started, by name (command monitoring).
class CommandCounter {
 public:
  void started(std::string_view name) {
    std::lock_guard lock(mutex_);
    ++counts_[std::string(name)];
  }
  std::map<std::string, long> snapshot() const {
    std::lock_guard lock(mutex_);
    return counts_;
  }
  long total() const {
    std::lock_guard lock(mutex_);
    long sum = 0;
    for (const auto& [name, count] : counts_) sum += count;
    return sum;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    counts_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, long> counts_;
};
CommandCounter commands;

std::string describe(const std::map<std::string, long>& counts) {
  std::string out;
  for (const auto& [name, count] : counts) {
    if (!out.empty()) out += " ";
    out += name + "=" + std::to_string(count);
  }
  return out.empty() ? "none" : out;
}

// ---------------------------------------------------------------------------------------
// The data, inserted once into the server and loaded once into memory.

struct Fixture {
  odm::Client client;
  odm::Database db;
  std::vector<Book> books;                     // decoded once; copied per iteration
  std::vector<Product> products;               // the one product with its RefMany ids
  std::vector<odm::Document> book_docs;        // the books as the find sends them
  std::vector<odm::Document> publisher_docs;   // what resolve fetches, as the server sends it
  std::vector<odm::Document> part_docs;
  std::vector<Publisher> publisher_targets;    // the same, decoded (input of join_work_*)
  std::vector<Part> part_targets;
  std::vector<Order> orders;                   // 1,000 orders of 5 line items
  std::vector<odm::Document> order_docs;
  std::vector<odm::Document> catalog_docs;     // the products the orders' items point at
  std::vector<CatalogProduct> catalog_targets;
  std::vector<odm::Document> lookup_order_rows;  // what the $lookup form's aggregate returns

  Fixture()
      : client(settings.uri, odm::ClientOptions{}.on_command_started(
                                 [](const odm::CommandEvent& event) { commands.started(event.command_name); })),
        db(client.database(settings.db)) {}
};

std::string publisher_key(std::size_t p) { return "pub" + std::to_string(p); }

/// The product of line item i of order o.
std::int64_t expected_item_product(std::size_t o, std::size_t i) {
  return static_cast<std::int64_t>((o * 7 + i * 31) % settings.catalog_products);
}

bool data_present(const odm::Database& db) {
  if (db.collection<Publisher>().count() != static_cast<std::int64_t>(settings.publishers)) return false;
  if (db.collection<Book>().count() != static_cast<std::int64_t>(settings.books)) return false;
  if (db.collection<Part>().count() != static_cast<std::int64_t>(settings.parts)) return false;
  if (db.collection<CatalogProduct>().count() != static_cast<std::int64_t>(settings.catalog_products)) return false;
  if (db.collection<Order>().count() != static_cast<std::int64_t>(settings.orders)) return false;
  const auto products = db.collection<Product>().find().to_vector();
  return products.size() == 1 && products[0].parts.size() == settings.parts;
}

void insert_data(const odm::Database& db) {
  const auto started = steady_clock::now();
  db.drop();
  std::vector<Publisher> publishers;
  for (std::size_t p = 0; p < settings.publishers; ++p)
    publishers.push_back({publisher_key(p), "Publisher " + std::to_string(p), static_cast<std::int32_t>(1900 + p),
                          "Sebastopol, CA"});
  db.collection<Publisher>().insert_many(publishers);
  std::vector<Book> books;
  books.reserve(settings.books);
  for (std::size_t b = 0; b < settings.books; ++b)
    books.push_back({static_cast<std::int64_t>(b), "Book number " + std::to_string(b),
                     odm::Ref<Publisher>(publisher_key((b * 7) % settings.publishers))});
  db.collection<Book>().insert_many(books);
  std::fprintf(stderr, "join_bench: inserted %zu publishers and %zu books\n", settings.publishers, settings.books);

  std::vector<Part> parts;
  parts.reserve(settings.parts);
  for (std::size_t i = 0; i < settings.parts; ++i)
    parts.push_back({{}, std::to_string(100 + i % 900) + "-aff-" + std::to_string(i), "#" + std::to_string(i % 50) + " grommet"});
  db.collection<Part>().insert_many(parts);  // assigns the ObjectIds
  std::vector<odm::ObjectId> ids;
  ids.reserve(parts.size());
  for (const Part& part : parts) ids.push_back(part.id);
  db.collection<Product>().insert_one(Product{{}, "left-handed smoke shifter", odm::RefMany<Part>(ids)});
  std::fprintf(stderr, "join_bench: inserted %zu parts and their product in %.1f s\n", settings.parts,
               duration<double>(steady_clock::now() - started).count());

  std::vector<CatalogProduct> catalog;
  for (std::size_t p = 0; p < settings.catalog_products; ++p)
    catalog.push_back({static_cast<std::int64_t>(p), "Product " + std::to_string(p), "SKU-" + std::to_string(100000 + p),
                       static_cast<std::int32_t>(p % 17)});
  db.collection<CatalogProduct>().insert_many(catalog);
  std::vector<Order> orders;
  for (std::size_t o = 0; o < settings.orders; ++o) {
    Order order{static_cast<std::int64_t>(o), "customer " + std::to_string(o % 97), {}};
    for (std::size_t i = 0; i < settings.items_per_order; ++i)
      order.items.emplace_back(LineItem{odm::Ref<CatalogProduct>(expected_item_product(o, i)), static_cast<std::int32_t>(i + 1), "gift wrap"});
    orders.push_back(std::move(order));
  }
  db.collection<Order>().insert_many(orders);
  std::fprintf(stderr, "join_bench: inserted %zu products and %zu orders of %zu items\n", settings.catalog_products,
               settings.orders, settings.items_per_order);
}

/// The distinct ids of `documents`' `member`, in first-seen order (what step 1 computes).
template <class T, class M>
auto distinct_ids(std::vector<T>& documents, M T::*member) {
  return odm::detail::gather_ids(odm::detail::JoinSet<T>::of(documents, nullptr), member).ids;
}

/// The line items of every order, as the join collects them.
odm::detail::JoinSet<LineItem> items_of(std::vector<Order>& orders) {
  return odm::detail::embedded_set(odm::detail::JoinSet<Order>::of(orders, nullptr), &Order::items, "items", "items");
}

/// The documents the join's finds return, undecoded: the same `$in` filters, the same order.
template <class Target, class Id>
std::vector<odm::Document> fetched_documents(const odm::Database& db, const std::vector<Id>& ids) {
  std::vector<odm::Document> out;
  for (odm::Document& filter : odm::detail::in_filters("_id", ids, odm::JoinOptions{}))
    for (odm::Document& doc : db.collection<Target>().template find<odm::Document>(odm::Filter<Target>::raw(std::move(filter))))
      out.push_back(std::move(doc));
  return out;
}

/// The rows the $lookup form's aggregate returns for `relation` over every document, by _id.
template <class T>
std::vector<odm::Document> lookup_rows(const odm::Database& db, const odm::Relation<T>& relation) {
  odm::detail::LookupResults results;
  odm::detail::LookupQuery query;
  query.sort = odm::Document::from_json(R"({"_id": 1})");
  const odm::Document pipeline = odm::detail::lookup_pipeline(query, {&relation.step()}, results);
  std::vector<odm::Document> rows;
  for (odm::Document& row : db.collection<T>().aggregate_raw(pipeline)) rows.push_back(std::move(row));
  return rows;
}

std::size_t bytes_of(const std::vector<odm::Document>& documents) {
  std::size_t bytes = 0;
  for (const odm::Document& document : documents) bytes += document.size();
  return bytes;
}

Fixture& fixture() {
  static Fixture* instance = [] {
    auto* f = new Fixture();
    if (!data_present(f->db)) insert_data(f->db);
    const auto by_id = [] { return odm::FindOptions<Book>{}.sort(odm::Sort<Book>::raw(odm::Document::from_json(R"({"_id": 1})"))); };
    f->books = f->db.collection<Book>().find({}, by_id()).to_vector();
    for (odm::Document& doc : f->db.collection<Book>().find<odm::Document>({}, by_id())) f->book_docs.push_back(std::move(doc));
    f->products = f->db.collection<Product>().find().to_vector();
    f->orders = f->db.collection<Order>().find({}, odm::FindOptions<Order>{}.sort(odm::Sort<Order>::raw(odm::Document::from_json(R"({"_id": 1})")))).to_vector();
    for (odm::Document& doc : f->db.collection<Order>().find<odm::Document>({}, odm::FindOptions<Order>{}.sort(odm::Sort<Order>::raw(odm::Document::from_json(R"({"_id": 1})")))))
      f->order_docs.push_back(std::move(doc));
    f->catalog_docs = fetched_documents<CatalogProduct>(f->db, odm::detail::gather_ids(items_of(f->orders), &LineItem::product).ids);
    for (const auto& doc : f->catalog_docs) f->catalog_targets.push_back(odm::from_bson<CatalogProduct>(doc));
    f->publisher_docs = fetched_documents<Publisher>(f->db, distinct_ids(f->books, &Book::publisher_id));
    f->part_docs = fetched_documents<Part>(f->db, distinct_ids(f->products, &Product::parts));
    for (const auto& doc : f->publisher_docs) f->publisher_targets.push_back(odm::from_bson<Publisher>(doc));
    for (const auto& doc : f->part_docs) f->part_targets.push_back(odm::from_bson<Part>(doc));
    f->lookup_order_rows = lookup_rows(f->db, odm::with(&Order::items, odm::with(&LineItem::product)));
    if (f->lookup_order_rows.size() != settings.orders) fail("the $lookup aggregate did not return every order");
    if (f->books.size() != settings.books || f->book_docs.size() != settings.books ||
        f->publisher_docs.size() != settings.publishers ||
        f->products.size() != 1 || f->part_docs.size() != settings.parts || f->orders.size() != settings.orders ||
        f->catalog_docs.size() != settings.catalog_products)
      fail("the stored data is not what was inserted");
    return f;
  }();
  return *instance;
}

/// 100,000 parts and their product, built in memory: the client-only side of the 100,000-id
/// join (the bytes are those odm::to_bson writes, which the server stores and returns as is).
struct OfflineParts {
  std::vector<Product> products;
  std::vector<odm::Document> part_docs;
  std::vector<Part> part_targets;
  std::size_t finds = 0;  // the finds the join would send (detail::in_filters)
};

OfflineParts& offline_parts() {
  static OfflineParts* instance = [] {
    auto* o = new OfflineParts();
    std::vector<odm::ObjectId> ids;
    for (std::size_t i = 0; i < settings.offline_parts; ++i) {
      Part part{odm::ObjectId::generate(), std::to_string(100 + i % 900) + "-aff-" + std::to_string(i),
                "#" + std::to_string(i % 50) + " grommet"};
      ids.push_back(part.id);
      o->part_docs.push_back(odm::to_bson(part));
    }
    // Decoded back from the bytes (as the stored product would be), not built from ids.
    const Product product{odm::ObjectId::generate(), "left-handed smoke shifter", odm::RefMany<Part>(ids)};
    o->products.push_back(odm::from_bson<Product>(odm::to_bson(product)));
    for (const auto& doc : o->part_docs) o->part_targets.push_back(odm::from_bson<Part>(doc));
    o->finds = odm::detail::in_filters("_id", distinct_ids(o->products, &Product::parts), odm::JoinOptions{}).size();
    return o;
  }();
  return *instance;
}

// ---------------------------------------------------------------------------------------
// The join's own work: odm::with's lambda (include/odm/join/join.hpp) without the fetch,
// one noinline function per step.

template <class T>
[[gnu::noinline]] odm::detail::JoinSet<T> step_set(std::vector<T>& documents, odm::detail::DropFlags& dropped) {
  return odm::detail::JoinSet<T>::of(documents, &dropped);  // 0. the documents a step acts on
}

[[gnu::noinline]] odm::detail::JoinSet<LineItem> step_look_inside(const odm::detail::JoinSet<Order>& set) {
  return odm::detail::embedded_set(set, &Order::items, "items", "items");  // 0'. every order's line items
}

template <class T, class M>
[[gnu::noinline]] auto step_gather(const odm::detail::JoinSet<T>& set, M T::*member) {
  return odm::detail::gather_ids(set, member);  // 1. distinct ids, a slot per reference
}

template <class Id>
[[gnu::noinline]] std::vector<odm::Document> step_in_filters(const std::vector<Id>& ids) {
  // 2. (the queries only) What fetch_where_in builds before it sends anything.
  return odm::detail::in_filters("_id", ids, odm::JoinOptions{});
}

template <class Target, class Id>
[[gnu::noinline]] std::vector<std::shared_ptr<const Target>> step_share(std::vector<Target>& targets,
                                                                        const odm::detail::GatheredIds<Id>& gathered) {
  return odm::detail::share_targets(targets, gathered);  // 4. each target shared once
}

template <class T, class M, class Target, class Id>
[[gnu::noinline]] void step_assign(odm::detail::JoinSet<T>& set, M T::*member, const odm::detail::GatheredIds<Id>& gathered,
                                   const std::vector<std::shared_ptr<const Target>>& by_slot) {
  odm::detail::assign_targets(set, member, gathered, by_slot, "bench", "bench");  // 5. assign
}

template <class T>
[[gnu::noinline]] void step_erase(std::vector<T>& documents, const odm::detail::DropFlags& dropped) {
  odm::detail::erase_dropped(documents, dropped);  // 6. (drop) leave out flagged documents
}

/// The join's own work on one set; `targets` stands for what the finds returned.
template <class T, class M, class Target>
void join_set_work(odm::detail::JoinSet<T>& set, M T::*member, std::vector<Target>& targets) {
  const auto gathered = step_gather(set, member);
  std::vector<odm::Document> filters = step_in_filters(gathered.ids);
  benchmark::DoNotOptimize(filters.data());
  step_assign(set, member, gathered, step_share(targets, gathered));
}

/// The whole of the join's own work for a top-level member.
template <class T, class M, class Target>
[[gnu::noinline]] void join_work(std::vector<T>& documents, M T::*member, std::vector<Target> targets) {
  odm::detail::DropFlags dropped{documents.size(), {}};
  odm::detail::JoinSet<T> set = step_set(documents, dropped);
  join_set_work(set, member, targets);
  step_erase(documents, dropped);
}

/// The same through the orders' embedded line items: odm::with(&Order::items, odm::with(&LineItem::product)).
[[gnu::noinline]] void join_work_nested(std::vector<Order>& orders, std::vector<CatalogProduct> targets) {
  odm::detail::DropFlags dropped{orders.size(), {}};
  const odm::detail::JoinSet<Order> set = step_set(orders, dropped);
  odm::detail::JoinSet<LineItem> items = step_look_inside(set);
  join_set_work(items, &LineItem::product, targets);
  step_erase(orders, dropped);
}

/// Decoding the fetched documents alone, as fetch_where_in stores them.
template <class Target>
[[gnu::noinline]] std::vector<Target> decode_all(const std::vector<odm::Document>& docs) {
  std::vector<Target> found;
  found.reserve(docs.size());
  for (const odm::Document& doc : docs) found.push_back(odm::from_bson<Target>(doc.get()));
  return found;
}

template <class T, class M>
[[gnu::noinline]] void resolve_whole(const odm::Database& db, std::vector<T>& documents, M T::*member) {
  odm::resolve(db, documents, odm::with(member));
}

[[gnu::noinline]] void resolve_orders(const odm::Database& db, std::vector<Order>& orders) {
  odm::resolve(db, orders, odm::with(&Order::items, odm::with(&LineItem::product)));
}

/// The whole odm::find_joined of every document by _id, on `side`.
template <class T, class M, class... Nested>
[[gnu::noinline]] odm::Resolved<T> query_joined(const odm::Database& db, odm::JoinSide side, M T::*member,
                                                Nested... nested) {
  odm::JoinOptions options;
  options.side = side;
  return odm::find_joined(db, {}, odm::Sort<T>::raw(odm::Document::from_json(R"({"_id": 1})")), options,
                          odm::with(member, std::move(nested)...));
}

/// The $lookup form's client work after the aggregate (see the header): the targets read
/// out of the rows, then the join with them. `orders` are the rows' orders, decoded.
[[gnu::noinline]] void lookup_join_work_orders(const odm::Database& db, const std::vector<odm::Document>& rows,
                                               std::vector<Order>& orders) {
  const auto relation = odm::with(&Order::items, odm::with(&LineItem::product));
  odm::detail::LookupResults results;
  results.sources = {"bench"};
  results.pools.resize(1);
  for (const odm::Document& row : rows) odm::detail::collect_lookups(row.get(), results);
  relation(db, orders, odm::detail::SkipReport::with_lookup(odm::JoinOptions{}, results));
}

// ---------------------------------------------------------------------------------------
// Cases, each: prepare (not measured), run (measured), finish (not measured).

std::int32_t next_review_id = 1'000'000;
bool subset_prepared = false;  // the product of the subset case exists (reset by prepare_subset)

void prepare_subset(const odm::Database& db) {
  db.collection<Review>().drop();
  db.collection<ReviewedProduct>().drop();
  db.collection<ReviewedProduct>().insert_one(ReviewedProduct{1, "Super Widget", {}});
  subset_prepared = true;
}

void add_one_review(const odm::Database& db) {
  const std::int32_t id = next_review_id++;
  Review review{id, {}, "author " + std::to_string(id), "This is indeed an amazing widget, review " + std::to_string(id),
                sys_days(year(2019) / 1 / 1) + days((id * 7) % 365)};
  if (!odm::subset::add(db, &ReviewedProduct::reviews, 1, std::move(review))) fail("subset::add: no product 1");
}

/// Runs `n` iterations of case `name`, with `measured` bracketing the measured part.
template <class Measured>
bool run_case(std::string_view name, long n, Measured&& measured) {
  if (name == "decode_parts_100k") {
    OfflineParts& o = offline_parts();
    for (long i = 0; i < n; ++i) {
      std::vector<Part> found;
      measured([&] { found = decode_all<Part>(o.part_docs); });
    }
    return true;
  }
  if (name == "join_work_parts_100k") {
    OfflineParts& o = offline_parts();
    for (long i = 0; i < n; ++i) {
      std::vector<Product> products = o.products;
      std::vector<Part> targets = o.part_targets;
      measured([&] { join_work(products, &Product::parts, std::move(targets)); });
    }
    return true;
  }
  Fixture& f = fixture();
  if (name == "resolve_books") {
    for (long i = 0; i < n; ++i) {
      std::vector<Book> books = f.books;
      measured([&] { resolve_whole(f.db, books, &Book::publisher_id); });
    }
  } else if (name == "decode_books") {
    for (long i = 0; i < n; ++i) {
      std::vector<Book> found;
      measured([&] { found = decode_all<Book>(f.book_docs); });
    }
  } else if (name == "decode_publishers") {
    for (long i = 0; i < n; ++i) {
      std::vector<Publisher> found;
      measured([&] { found = decode_all<Publisher>(f.publisher_docs); });
    }
  } else if (name == "join_work_books") {
    for (long i = 0; i < n; ++i) {
      std::vector<Book> books = f.books;
      std::vector<Publisher> targets = f.publisher_targets;
      measured([&] { join_work(books, &Book::publisher_id, std::move(targets)); });
    }
  } else if (name == "resolve_parts") {
    for (long i = 0; i < n; ++i) {
      std::vector<Product> products = f.products;
      measured([&] { resolve_whole(f.db, products, &Product::parts); });
    }
  } else if (name == "decode_parts") {
    for (long i = 0; i < n; ++i) {
      std::vector<Part> found;
      measured([&] { found = decode_all<Part>(f.part_docs); });
    }
  } else if (name == "join_work_parts") {
    for (long i = 0; i < n; ++i) {
      std::vector<Product> products = f.products;
      std::vector<Part> targets = f.part_targets;
      measured([&] { join_work(products, &Product::parts, std::move(targets)); });
    }
  } else if (name == "resolve_orders") {
    for (long i = 0; i < n; ++i) {
      std::vector<Order> orders = f.orders;
      measured([&] { resolve_orders(f.db, orders); });
    }
  } else if (name == "decode_orders") {
    for (long i = 0; i < n; ++i) {
      std::vector<Order> found;
      measured([&] { found = decode_all<Order>(f.order_docs); });
    }
  } else if (name == "decode_order_products") {
    for (long i = 0; i < n; ++i) {
      std::vector<CatalogProduct> found;
      measured([&] { found = decode_all<CatalogProduct>(f.catalog_docs); });
    }
  } else if (name == "join_work_orders") {
    for (long i = 0; i < n; ++i) {
      std::vector<Order> orders = f.orders;
      std::vector<CatalogProduct> targets = f.catalog_targets;
      measured([&] { join_work_nested(orders, std::move(targets)); });
    }
  } else if (name == "query_client_books" || name == "query_server_books") {
    const auto side = name == "query_server_books" ? odm::JoinSide::server : odm::JoinSide::client;
    for (long i = 0; i < n; ++i) {
      std::optional<odm::Resolved<Book>> result;
      measured([&] { result.emplace(query_joined(f.db, side, &Book::publisher_id)); });
    }
  } else if (name == "query_client_orders" || name == "query_server_orders") {
    const auto side = name == "query_server_orders" ? odm::JoinSide::server : odm::JoinSide::client;
    for (long i = 0; i < n; ++i) {
      std::optional<odm::Resolved<Order>> result;
      measured([&] { result.emplace(query_joined(f.db, side, &Order::items, odm::with(&LineItem::product))); });
    }
  } else if (name == "lookup_join_work_orders") {
    for (long i = 0; i < n; ++i) {
      std::vector<Order> orders = f.orders;
      measured([&] { lookup_join_work_orders(f.db, f.lookup_order_rows, orders); });
    }
  } else if (name == "subset_add") {
    if (!subset_prepared) prepare_subset(f.db);
    for (long i = 0; i < n; ++i) measured([&] { add_one_review(f.db); });
  } else {
    return false;
  }
  return true;
}

constexpr const char* case_names[] = {"resolve_books",     "decode_books",         "decode_publishers", "join_work_books",
                                      "resolve_parts",     "decode_parts",         "join_work_parts",   "resolve_orders",
                                      "decode_orders",     "decode_order_products", "join_work_orders", "subset_add",
                                      "decode_parts_100k", "join_work_parts_100k", "query_client_books", "query_server_books",
                                      "query_client_orders", "query_server_orders", "lookup_join_work_orders"};

// ---------------------------------------------------------------------------------------
// The commands each operation sends, with the results checked.

void report_queries() {
  Fixture& f = fixture();
  {
    std::vector<Book> books = f.books;
    commands.clear();
    odm::resolve(f.db, books, odm::with(&Book::publisher_id));
    const auto sent = commands.snapshot();
    for (const Book& book : books)
      if (!book.publisher_id.is_loaded() || book.publisher_id->id != publisher_key((book.id * 7) % settings.publishers))
        fail("resolve_books: a book has the wrong publisher");
    if (books[0].publisher_id.shared() != books[settings.publishers].publisher_id.shared())
      fail("resolve_books: publishers are not shared");
    std::printf("queries resolve_books %zu-books->%zu-publishers: %s\n", settings.books, settings.publishers,
                describe(sent).c_str());
  }
  {
    std::vector<Product> products = f.products;
    commands.clear();
    odm::resolve(f.db, products, odm::with(&Product::parts));
    const auto sent = commands.snapshot();
    const auto& refs = products[0].parts;
    if (!refs.is_loaded() || refs.targets().size() != settings.parts) fail("resolve_parts: parts are missing");
    for (std::size_t i = 0; i < refs.size(); i += 997)
      if (refs[i].id != refs.id(i)) fail("resolve_parts: a part is out of order");
    std::printf("queries resolve_parts %zu-ids: %s\n", settings.parts, describe(sent).c_str());
    // The split into several finds, on the wire: at most parts/2 ids per $in.
    products = f.products;
    commands.clear();
    odm::JoinOptions half;
    half.max_ids_per_query = (settings.parts + 1) / 2;
    odm::resolve(f.db, products, odm::with(&Product::parts), half);
    if (products[0].parts.targets().size() != settings.parts) fail("resolve_parts: parts are missing (split)");
    std::printf("queries resolve_parts %zu-ids,max_ids_per_query=%zu: %s\n", settings.parts, half.max_ids_per_query,
                describe(commands.snapshot()).c_str());
    std::printf("queries resolve_parts %zu-ids (client only, detail::in_filters): find=%zu\n", settings.offline_parts,
                offline_parts().finds);
  }
  {
    std::vector<Order> orders = f.orders;
    commands.clear();
    resolve_orders(f.db, orders);
    const auto sent = commands.snapshot();
    for (const Order& order : orders)
      for (std::size_t i = 0; i < order.items.size(); ++i)
        if (!order.items[i]->product.is_loaded() ||
            order.items[i]->product->id != expected_item_product(static_cast<std::size_t>(order.id), i))
          fail("resolve_orders: a line item has the wrong product");
    std::printf("queries resolve_orders %zu-orders-x-%zu-items->%zu-products: %s\n", settings.orders,
                settings.items_per_order, settings.catalog_products, describe(sent).c_str());
  }
  {
    // The same joins on the client and on the server: commands, and bytes received.
    const auto check_books = [](const odm::Resolved<Book>& books) {
      for (const Book& book : books)
        if (!book.publisher_id.is_loaded() || book.publisher_id->id != publisher_key((book.id * 7) % settings.publishers))
          fail("query_*_books: a book has the wrong publisher");
    };
    const auto check_orders = [](const odm::Resolved<Order>& orders) {
      for (const Order& order : orders)
        for (std::size_t i = 0; i < order.items.size(); ++i)
          if (order.items[i]->product->id != expected_item_product(static_cast<std::size_t>(order.id), i))
            fail("query_*_orders: a line item has the wrong product");
    };
    for (const auto side : {odm::JoinSide::client, odm::JoinSide::server}) {
      const char* name = side == odm::JoinSide::server ? "server" : "client";
      commands.clear();
      check_books(query_joined(f.db, side, &Book::publisher_id));
      std::printf("queries query_%s_books: %s\n", name, describe(commands.snapshot()).c_str());
      commands.clear();
      check_orders(query_joined(f.db, side, &Order::items, odm::with(&LineItem::product)));
      std::printf("queries query_%s_orders: %s\n", name, describe(commands.snapshot()).c_str());
    }
    const std::size_t books_client = bytes_of(f.book_docs) + bytes_of(f.publisher_docs);
    const std::size_t books_server = bytes_of(lookup_rows(f.db, odm::with(&Book::publisher_id)));
    const std::size_t orders_client = bytes_of(f.order_docs) + bytes_of(f.catalog_docs);
    const std::size_t orders_server = bytes_of(f.lookup_order_rows);
    std::printf("bytes books client %zu server %zu (x%.1f)\n", books_client, books_server,
                static_cast<double>(books_server) / static_cast<double>(books_client));
    std::printf("bytes orders client %zu server %zu (x%.1f)\n", orders_client, orders_server,
                static_cast<double>(orders_server) / static_cast<double>(orders_client));
  }
  {
    prepare_subset(f.db);
    commands.clear();
    constexpr int adds = 1'000;
    for (int i = 0; i < adds; ++i) add_one_review(f.db);
    const auto sent = commands.snapshot();
    std::printf("queries subset_add %d-adds: %s (%.2f commands per add)\n", adds, describe(sent).c_str(),
                static_cast<double>(commands.total()) / adds);
    const auto product = f.db.collection<ReviewedProduct>().find_by_id(1);
    if (!product || product->reviews.size() != 10) fail("subset_add: the product does not hold 10 reviews");
    if (f.db.collection<Review>().count() != adds) fail("subset_add: reviews are missing");
    for (std::size_t i = 1; i < product->reviews.size(); ++i)
      if (product->reviews[i - 1].published_date < product->reviews[i].published_date)
        fail("subset_add: the embedded reviews are not newest first");
  }
}

// ---------------------------------------------------------------------------------------
// Google Benchmark.

/// Every benchmark reports the same counters (the CSV reporter requires it): the commands
/// sent by the measured code, and the join's steps (time_steps only; 0 elsewhere).
void set_counters(benchmark::State& state, long sent, double gather = 0, double filters = 0, double share = 0,
                  double assign = 0) {
  state.counters["cmds/op"] = benchmark::Counter(static_cast<double>(sent), benchmark::Counter::kAvgIterations);
  state.counters["gather_ns"] = gather;
  state.counters["in_filters_ns"] = filters;
  state.counters["share_ns"] = share;
  state.counters["assign_ns"] = assign;
}

void BM_case(benchmark::State& state, const char* name) {
  fixture();
  subset_prepared = false;  // each run of BM_subset_add starts from an empty subset
  long sent = 0;
  // Each benchmark iteration is one measured run; its preparation runs with the timer paused.
  for (auto _ : state) {
    state.PauseTiming();
    run_case(name, 1, [&](auto&& work) {
      const long before = commands.total();
      state.ResumeTiming();
      work();
      state.PauseTiming();
      sent += commands.total() - before;
    });
    state.ResumeTiming();
  }
  set_counters(state, sent);
}

/// The join's steps timed one by one (ns per operation, as counters).
template <class T, class M, class Target>
void time_steps(benchmark::State& state, const std::vector<T>& source, M T::*member, const std::vector<Target>& fetched) {
  double gather = 0, filters = 0, share = 0, assign = 0;
  long n = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<T> documents = source;
    std::vector<Target> targets = fetched;
    state.ResumeTiming();
    const auto t0 = steady_clock::now();
    odm::detail::DropFlags dropped{documents.size(), {}};
    odm::detail::JoinSet<T> set = step_set(documents, dropped);
    const auto gathered = step_gather(set, member);
    const auto t1 = steady_clock::now();
    auto queries = step_in_filters(gathered.ids);
    const auto t2 = steady_clock::now();
    auto by_slot = step_share(targets, gathered);
    const auto t3 = steady_clock::now();
    step_assign(set, member, gathered, by_slot);
    step_erase(documents, dropped);
    const auto t4 = steady_clock::now();
    benchmark::DoNotOptimize(queries.data());
    gather += duration<double, std::nano>(t1 - t0).count();
    filters += duration<double, std::nano>(t2 - t1).count();
    share += duration<double, std::nano>(t3 - t2).count();
    assign += duration<double, std::nano>(t4 - t3).count();
    ++n;
    state.PauseTiming();
    documents.clear();  // destroying the result is not the join's work
    state.ResumeTiming();
  }
  if (n > 0) set_counters(state, 0, gather / n, filters / n, share / n, assign / n);
}

void BM_join_steps_books(benchmark::State& state) {
  Fixture& f = fixture();
  time_steps(state, f.books, &Book::publisher_id, f.publisher_targets);
}
void BM_join_steps_parts(benchmark::State& state) {
  Fixture& f = fixture();
  time_steps(state, f.products, &Product::parts, f.part_targets);
}

void BM_join_steps_parts_100k(benchmark::State& state) {
  OfflineParts& o = offline_parts();
  time_steps(state, o.products, &Product::parts, o.part_targets);
}

void register_benchmarks() {
  for (const char* name : case_names) {
    auto* b = benchmark::RegisterBenchmark((std::string("BM_") + name).c_str(), BM_case, name);
    b->Unit(benchmark::kMicrosecond);
    if (std::string_view(name) == "resolve_parts") b->Iterations(5);
    if (std::string_view(name) == "subset_add") b->Iterations(1'000);  // adding 1,000 reviews
    if (std::string_view(name).starts_with("query_")) b->Iterations(5);  // the test server's $lookup is slow
  }
  benchmark::RegisterBenchmark("BM_join_steps_books", BM_join_steps_books)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_join_steps_parts", BM_join_steps_parts)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_join_steps_parts_100k", BM_join_steps_parts_100k)->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  const char* callgrind_case = nullptr;
  long iterations = -1;
  bool list = false, setup = false, queries = false;
  if (const char* uri = std::getenv("ODM_BENCH_URI")) settings.uri = uri;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&](std::string_view prefix) { return std::string(arg.substr(prefix.size())); };
    if (arg.starts_with("--callgrind-case="))
      callgrind_case = argv[i] + std::strlen("--callgrind-case=");
    else if (arg.starts_with("--iterations="))
      iterations = std::stol(value("--iterations="));
    else if (arg.starts_with("--uri="))
      settings.uri = value("--uri=");
    else if (arg.starts_with("--db="))
      settings.db = value("--db=");
    else if (arg.starts_with("--parts="))
      settings.parts = std::stoul(value("--parts="));
    else if (arg.starts_with("--offline-parts="))
      settings.offline_parts = std::stoul(value("--offline-parts="));
    else if (arg == "--list-cases")
      list = true;
    else if (arg == "--setup")
      setup = true;
    else if (arg == "--report-queries")
      queries = true;
    else
      argv[kept++] = argv[i];
  }
  argc = kept;

  if (list) {
    for (const char* name : case_names) std::printf("%s\n", name);
    return 0;
  }
  if (settings.uri.empty()) fail("no server: pass --uri=URI or set ODM_BENCH_URI");
  try {
    if (setup) {
      fixture();
      return 0;
    }
    if (queries) {
      report_queries();
      return 0;
    }
    if (callgrind_case != nullptr) {
      if (iterations < 0) fail("--callgrind-case needs --iterations=N");
      // The data is loaded by run_case before the first measured run, outside collection.
      const bool known = run_case(callgrind_case, iterations, [](auto&& work) {
        JOIN_BENCH_COLLECT();
        work();
        JOIN_BENCH_COLLECT();
      });
      if (!known) fail(std::string("unknown case ") + callgrind_case + " (--list-cases)");
      return 0;
    }
  } catch (const std::exception& e) {
    fail(e.what());
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
