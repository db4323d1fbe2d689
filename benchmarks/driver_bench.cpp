// odm's client-side cost per operation against the same operation written directly with
// libmongoc, on the same server, in the same binary (issue 3: "odm's added CPU per
// operation under 10% of the libmongoc version's").
//
// The model is the seed book:
//   {_id: int64, title, author: [..], published_date, pages, language, publisher_id,
//    available, checkout: [{by, date}]}
//
// Three operations, each written twice:
//
//   insert_one      odm: Collection<Book>::insert_one(book).
//                   libmongoc: pop a client from its own mongoc_client_pool_t, get the
//                   collection, build the document with bson_append_* (strings UTF-8
//                   validated, as odm does), mongoc_collection_insert_one with a reply,
//                   destroy everything, push the client back.
//   find_by_id      odm: Collection<Book>::find_by_id(id) -> std::optional<Book>.
//                   libmongoc: filter {_id: id}, opts {limit: 1},
//                   mongoc_collection_find_with_opts, one mongoc_cursor_next, the cursor's
//                   error checked when there is no document, the document decoded by hand.
//   find_1000       odm: Collection<Book>::find().to_vector() over a collection of 1,000 books.
//                   libmongoc: mongoc_collection_find_with_opts({}), every document decoded
//                   by hand into a fresh Book that is moved into a std::vector<Book>.
//
// Decoding by hand does what an application must do to use the data, and what odm's
// codecs check (odm/bson/scalars.hpp, containers.hpp): walk the document with bson_iter,
// find each member by key (a switch on the key length, then memcmp), reject duplicates and
// missing required fields, ignore unknown fields, check every BSON type (int64 accepts
// int32; int32 accepts an in-range int64), validate every string with
// bson_utf8_validate(allow_null = true), check that published_date is a whole day, and
// report corrupt bytes (iter.err_off). Both sides get the same pooled-client treatment:
// every operation pops a client and gets a mongoc_collection_t, like odm's CollectionCore.
//
// At startup: the hand-written encoder must produce the same bytes as odm::to_bson, and
// both sides' find_by_id and find_1000 must decode equal values (equal to the seed books).
//
// The server: $MONGODB_URI (the odm test server, tests/server/ctl.sh, or a mongod).
// heartbeatFrequencyMS=60000 is added to the URI when it does not set it, so that the
// pools' background monitors poll rarely during a measurement (callgrind counts every
// thread of the process). Database "odm_driver_bench"; collections "books" (1,000 books,
// made once and reused while they are there), "inserted_odm" and "inserted_c" (dropped at
// startup).
//
// Modes:
//   driver_bench [Google Benchmark flags]            the six BM_* benchmarks
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
#include "handwritten.hpp"
#include <bson/bson.h>
#include <mongoc/mongoc.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using namespace handwritten;  // NOLINT(google-build-using-namespace): the shared hand-written readers

using Millis = std::chrono::sys_time<std::chrono::milliseconds>;
using std::chrono::sys_days;

[[noreturn]] void fail(const char* what, const char* detail = nullptr) {
  std::fprintf(stderr, "driver_bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  std::abort();
}

constexpr const char* database_name = "odm_driver_bench";
constexpr const char* books_name = "books";
constexpr const char* inserted_odm_name = "inserted_odm";
constexpr const char* inserted_c_name = "inserted_c";
constexpr std::int64_t book_count = 1000;

// ---------------------------------------------------------------------------------------
// The model.

struct Checkout {
  std::string by;
  Millis date;
  bool operator==(const Checkout&) const = default;
};

struct Book {
  std::int64_t id;  // stored as _id
  std::string title;
  std::vector<std::string> author;
  sys_days published_date;
  std::int32_t pages;
  std::string language;
  std::string publisher_id;
  std::int32_t available;
  std::vector<Checkout> checkout;
  bool operator==(const Book&) const = default;
};

/// The seed book (id 123456789 in the guide), varied by `n` so the 1,000 books differ.
Book make_book(std::int64_t n) {
  using namespace std::chrono;
  const auto at = [](int y, int m, int d, int hour, int minute) {
    return Millis(sys_days(year(y) / m / d)) + hours(hour) + minutes(minute);
  };
  Book book{
      .id = n,
      .title = "MongoDB: The Definitive Guide, volume " + std::to_string(n),
      .author = {"Kristina Chodorow", "Mike Dirolf"},
      .published_date = sys_days(year(2010) / 9 / 24) + days(n % 365),
      .pages = static_cast<std::int32_t>(216 + n % 100),
      .language = "English",
      .publisher_id = "oreilly",
      .available = static_cast<std::int32_t>(n % 4),
      .checkout = {{"joe", at(2012, 10, 15, 9, 30)}},
  };
  if (n % 2 == 0) book.checkout.push_back({"abc", at(2012, 11, 2, 14, static_cast<int>(n % 60))});
  if (n % 3 == 0) book.author.push_back("Shannon Bradshaw");
  return book;
}

// ---------------------------------------------------------------------------------------
// Hand-written libbson code for Book.


std::int64_t millis_of(sys_days day) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(day.time_since_epoch()).count();
}

/// Appends the members of `b` to `doc` (initialized by the caller).
bool encode_book_handwritten(const Book& b, bson_t* doc) {
  bool ok = bson_append_int64(doc, "_id", 3, b.id) && append_string(doc, "title", 5, b.title);
  bson_t array;
  ok = ok && bson_append_array_begin(doc, "author", 6, &array);
  for (std::uint32_t i = 0; ok && i < b.author.size(); ++i) {
    char buffer[16];
    const char* key = nullptr;
    const std::size_t key_length = bson_uint32_to_string(i, &key, buffer, sizeof buffer);
    ok = append_string(&array, key, static_cast<int>(key_length), b.author[i]);
  }
  ok = ok && bson_append_array_end(doc, &array) &&
       bson_append_date_time(doc, "published_date", 14, millis_of(b.published_date)) &&
       bson_append_int32(doc, "pages", 5, b.pages) &&            //
       append_string(doc, "language", 8, b.language) &&         //
       append_string(doc, "publisher_id", 12, b.publisher_id) &&  //
       bson_append_int32(doc, "available", 9, b.available) &&    //
       bson_append_array_begin(doc, "checkout", 8, &array);
  for (std::uint32_t i = 0; ok && i < b.checkout.size(); ++i) {
    char buffer[16];
    const char* key = nullptr;
    const std::size_t key_length = bson_uint32_to_string(i, &key, buffer, sizeof buffer);
    bson_t child;
    ok = bson_append_document_begin(&array, key, static_cast<int>(key_length), &child) &&
         append_string(&child, "by", 2, b.checkout[i].by) &&
         bson_append_date_time(&child, "date", 4, b.checkout[i].date.time_since_epoch().count()) &&
         bson_append_document_end(&array, &child);
  }
  return ok && bson_append_array_end(doc, &array);
}








bool read_checkout(const bson_iter_t* it, Checkout* out) {
  if (bson_iter_type(it) != BSON_TYPE_DOCUMENT) return false;
  bson_iter_t child;
  if (!bson_iter_recurse(it, &child)) return false;
  std::uint32_t seen = 0;
  while (bson_iter_next(&child)) {
    const char* key = bson_iter_key(&child);
    bool ok = true;
    switch (bson_iter_key_len(&child)) {
      case 2:
        if (is_key(key, "by")) ok = claim(&seen, 1u << 0) && read_string(&child, &out->by);
        break;
      case 4:
        if (is_key(key, "date")) ok = claim(&seen, 1u << 1) && read_millis(&child, &out->date);
        break;
      default: break;  // unknown field: ignored
    }
    if (!ok) return false;
  }
  return child.err_off == 0 && seen == 3;
}

bool decode_book_handwritten(const bson_t* doc, Book* out) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return false;
  std::uint32_t seen = 0;
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    bool ok = true;
    switch (bson_iter_key_len(&it)) {
      case 3:
        if (is_key(key, "_id")) ok = claim(&seen, 1u << 0) && read_int64(&it, &out->id);
        break;
      case 5:
        if (is_key(key, "title"))
          ok = claim(&seen, 1u << 1) && read_string(&it, &out->title);
        else if (is_key(key, "pages"))
          ok = claim(&seen, 1u << 4) && read_int32(&it, &out->pages);
        break;
      case 6:
        if (is_key(key, "author")) ok = claim(&seen, 1u << 2) && read_array(&it, &out->author, read_string);
        break;
      case 14:
        if (is_key(key, "published_date")) ok = claim(&seen, 1u << 3) && read_days(&it, &out->published_date);
        break;
      case 8:
        if (is_key(key, "language"))
          ok = claim(&seen, 1u << 5) && read_string(&it, &out->language);
        else if (is_key(key, "checkout"))
          ok = claim(&seen, 1u << 8) && read_array(&it, &out->checkout, read_checkout);
        break;
      case 12:
        if (is_key(key, "publisher_id")) ok = claim(&seen, 1u << 6) && read_string(&it, &out->publisher_id);
        break;
      case 9:
        if (is_key(key, "available")) ok = claim(&seen, 1u << 7) && read_int32(&it, &out->available);
        break;
      default: break;  // unknown field: ignored, as odm does for a non-strict model
    }
    if (!ok) return false;
  }
  return it.err_off == 0 && seen == (1u << 9) - 1;
}

// ---------------------------------------------------------------------------------------
// The hand-written libmongoc side: its own pool.

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

void insert_one_c(mongoc_client_pool_t* pool, const char* collection_name, const Book& book) {
  mongoc_client_t* client = mongoc_client_pool_pop(pool);
  mongoc_collection_t* collection = mongoc_client_get_collection(client, database_name, collection_name);
  bson_t doc;
  bson_init(&doc);
  if (!encode_book_handwritten(book, &doc)) fail("encode_book_handwritten failed");
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_collection_insert_one(collection, &doc, nullptr, &reply, &error);
  bson_destroy(&reply);
  bson_destroy(&doc);
  mongoc_collection_destroy(collection);
  mongoc_client_pool_push(pool, client);
  if (!ok) fail("mongoc_collection_insert_one", error.message);
}

std::optional<Book> find_by_id_c(mongoc_client_pool_t* pool, std::int64_t id) {
  mongoc_client_t* client = mongoc_client_pool_pop(pool);
  mongoc_collection_t* collection = mongoc_client_get_collection(client, database_name, books_name);
  bson_t filter;
  bson_init(&filter);
  bson_append_int64(&filter, "_id", 3, id);
  bson_t opts;
  bson_init(&opts);
  bson_append_int64(&opts, "limit", 5, 1);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(collection, &filter, &opts, nullptr);
  std::optional<Book> found;
  const bson_t* doc = nullptr;
  bson_error_t error;
  if (mongoc_cursor_next(cursor, &doc)) {
    if (!decode_book_handwritten(doc, &found.emplace())) fail("decode_book_handwritten failed");
  } else if (mongoc_cursor_error(cursor, &error)) {
    fail("find by id", error.message);
  }
  mongoc_cursor_destroy(cursor);
  bson_destroy(&opts);
  bson_destroy(&filter);
  mongoc_collection_destroy(collection);
  mongoc_client_pool_push(pool, client);
  return found;
}

std::vector<Book> find_all_c(mongoc_client_pool_t* pool) {
  mongoc_client_t* client = mongoc_client_pool_pop(pool);
  mongoc_collection_t* collection = mongoc_client_get_collection(client, database_name, books_name);
  bson_t filter;
  bson_init(&filter);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(collection, &filter, nullptr, nullptr);
  std::vector<Book> books;
  const bson_t* doc = nullptr;
  while (mongoc_cursor_next(cursor, &doc)) {
    Book book{};
    if (!decode_book_handwritten(doc, &book)) fail("decode_book_handwritten failed");
    books.push_back(std::move(book));
  }
  bson_error_t error;
  if (mongoc_cursor_error(cursor, &error)) fail("find", error.message);
  mongoc_cursor_destroy(cursor);
  bson_destroy(&filter);
  mongoc_collection_destroy(collection);
  mongoc_client_pool_push(pool, client);
  return books;
}

// ---------------------------------------------------------------------------------------
// The environment: both clients, the books, the ids to use.

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
  odm::Collection<Book> books = client.database(database_name).collection<Book>(books_name);
  odm::Collection<Book> inserted_odm = client.database(database_name).collection<Book>(inserted_odm_name);
  HandPool pool{uri};
  Book to_insert = make_book(7);  // inserted with a new id each time
  std::int64_t next_insert_odm = 0;
  std::int64_t next_insert_c = 0;
  std::int64_t next_find = 0;
  std::vector<Book> expected;  // the 1,000 books, in insertion order

  Env() {
    expected.reserve(book_count);
    for (std::int64_t n = 1; n <= book_count; ++n) expected.push_back(make_book(n));
  }
};

Env& env() {
  static Env instance;
  return instance;
}

void prepare_data(Env& e) {
  e.inserted_odm.drop();
  e.client.database(database_name).collection<Book>(inserted_c_name).drop();
  if (e.books.count() != book_count || e.books.find_by_id(book_count) != e.expected.back()) {
    e.books.drop();
    e.books.insert_many(e.expected);
  }
}

// ---------------------------------------------------------------------------------------
// The cases. Each is a separate, non-inlined function so that callgrind_annotate shows it
// (and everything it calls) as one inclusive cost.

std::int64_t next_id(std::int64_t& counter) { return ++counter; }
std::int64_t next_find_id(Env& e) { return e.next_find++ % book_count + 1; }

[[gnu::noinline]] void insert_one_odm(Env& e) {
  e.to_insert.id = next_id(e.next_insert_odm);
  auto result = e.inserted_odm.insert_one(std::as_const(e.to_insert));
  benchmark::DoNotOptimize(result);
}
[[gnu::noinline]] void insert_one_libmongoc(Env& e) {
  e.to_insert.id = next_id(e.next_insert_c);
  insert_one_c(e.pool.get(), inserted_c_name, e.to_insert);
}

[[gnu::noinline]] void find_by_id_odm(Env& e) {
  std::optional<Book> book = e.books.find_by_id(next_find_id(e));
  if (!book) fail("find_by_id_odm found nothing");
  benchmark::DoNotOptimize(&*book);
  benchmark::ClobberMemory();
}
[[gnu::noinline]] void find_by_id_libmongoc(Env& e) {
  std::optional<Book> book = find_by_id_c(e.pool.get(), next_find_id(e));
  if (!book) fail("find_by_id_libmongoc found nothing");
  benchmark::DoNotOptimize(&*book);
  benchmark::ClobberMemory();
}

[[gnu::noinline]] void find_1000_odm(Env& e) {
  std::vector<Book> books = e.books.find().to_vector();
  if (books.size() != book_count) fail("find_1000_odm: wrong count");
  benchmark::DoNotOptimize(books.data());
  benchmark::ClobberMemory();
}
[[gnu::noinline]] void find_1000_libmongoc(Env& e) {
  std::vector<Book> books = find_all_c(e.pool.get());
  if (books.size() != book_count) fail("find_1000_libmongoc: wrong count");
  benchmark::DoNotOptimize(books.data());
  benchmark::ClobberMemory();
}

struct Case {
  const char* name;
  void (*run)(Env&);
};

constexpr Case cases[] = {
    {"insert_one_odm", insert_one_odm},   {"insert_one_libmongoc", insert_one_libmongoc},
    {"find_by_id_odm", find_by_id_odm},   {"find_by_id_libmongoc", find_by_id_libmongoc},
    {"find_1000_odm", find_1000_odm},     {"find_1000_libmongoc", find_1000_libmongoc},
};

// ---------------------------------------------------------------------------------------
// Startup checks.

void check_equivalence(Env& e) {
  for (const Book& book : {e.expected.front(), e.expected.back(), e.to_insert}) {
    const odm::Document by_odm = odm::to_bson(book);
    bson_t by_hand;
    bson_init(&by_hand);
    if (!encode_book_handwritten(book, &by_hand)) fail("encode_book_handwritten failed");
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
  for (std::int64_t id : {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, book_count}) {
    const std::optional<Book> by_odm = e.books.find_by_id(id);
    const std::optional<Book> by_hand = find_by_id_c(e.pool.get(), id);
    if (!by_odm || !by_hand || *by_odm != *by_hand || *by_odm != e.expected[id - 1])
      fail("find_by_id: odm and libmongoc decode different books");
  }
  if (e.books.find_by_id(book_count + 1) || find_by_id_c(e.pool.get(), book_count + 1))
    fail("find_by_id: a missing id was found");
  const std::vector<Book> all_odm = e.books.find().to_vector();
  const std::vector<Book> all_hand = find_all_c(e.pool.get());
  if (all_odm != e.expected || all_hand != e.expected) fail("find: odm and libmongoc decode different books");
  // Both inserts store the same document.
  Book probe = e.to_insert;
  probe.id = -1;
  e.inserted_odm.insert_one(probe);
  insert_one_c(e.pool.get(), inserted_c_name, probe);
  const auto in_c = e.client.database(database_name).collection<Book>(inserted_c_name).find_by_id(-1);
  if (e.inserted_odm.find_by_id(-1) != probe || in_c != probe) fail("insert_one: the stored books differ");
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
  const char* callgrind_case = mode.case_name;
  const long iterations = mode.iterations;
  const bool list = mode.list_cases;

  if (list) {
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

  if (callgrind_case != nullptr) {
    if (iterations < 0) {
      std::fprintf(stderr, "driver_bench: --callgrind-case needs --iterations=N (N >= 0)\n");
      return 2;
    }
    for (const Case& c : cases) {
      if (std::strcmp(c.name, callgrind_case) != 0) continue;
      c.run(e);  // warm-up: the first operation of the measured kind, in both runs
      for (long i = 0; i < iterations; ++i) c.run(e);
      return 0;
    }
    std::fprintf(stderr, "driver_bench: unknown case \"%s\" (see --list-cases)\n", callgrind_case);
    return 2;
  }

  for (const Case& c : cases) benchmark::RegisterBenchmark((std::string("BM_") + c.name).c_str(), run_benchmark, c.run);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
