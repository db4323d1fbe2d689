#pragma once
// Shared by the integration tests: where the server is, a client per test, a database
// per test (dropped at the end), and a command counter built on command monitoring.
//
// The server: $MONGODB_URI when set (a real mongod, e.g. docker-compose.yml's replica
// set), else the engine the CTest fixture started (the odm test server, or
// mongo-java-server when ODM_TEST_ENGINE=java), whose URI is in the file named by
// $ODM_TEST_SERVER_URI_FILE.
//
// A test that needs something not every engine has says so first, with
// ODM_REQUIRE(capability): on an engine that lacks it the test is skipped and the
// reason printed. A capability is missing only where `engine_gaps` below says so; real
// MongoDB lacks none.

#include <odm/bson/document.hpp>
#include <odm/driver/client.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace odm_test {

/// The engines the integration tests run against; each answers buildInfo with a marker.
enum class Engine {
  mongodb,            // a real mongod or mongos
  odm_test_server,    // tests/server: `odmTestServer: true`
  mongo_java_server,  // tests/java-server: `odmJavaServer: true`
};

inline std::string_view engine_name(Engine engine) {
  switch (engine) {
    case Engine::mongodb: return "MongoDB";
    case Engine::odm_test_server: return "the odm test server";
    case Engine::mongo_java_server: return "mongo-java-server";
  }
  return "?";
}

/// What a test may need that not every engine has.
enum class Capability {
  sessions,                 // logical sessions (lsid on every command)
  transactions,             // multi-document transactions
  array_filters,            // updates with arrayFilters and $[<identifier>]
  unique_multikey_indexes,  // a unique index over array elements
  union_with,               // the $unionWith aggregation stage (MongoDB 4.4+)
  duplicate_key_details,    // keyPattern and keyValue in duplicate-key errors
  first_batch_of_101,       // a find without batchSize answers 101 documents first
  replica_set,              // a replica-set member or mongos: retryable writes, causal consistency
  fail_command,             // MongoDB's failCommand fail point (enableTestCommands)
  insert_counts,            // an insert's reply counts in `n` only the documents it stored
  array_filter_checks,      // an update's $[<identifier>] without its array filter is BadValue (2)
  large_in_queries,         // a find with a $in of 50,000 values answers within the socket timeout
  hint_checks,              // a hint naming no index is refused (BadValue, 2)
  unacknowledged_writes,    // a write with w: 0 (OP_MSG moreToCome) is applied
  not_through_arrays,       // $not on a path through an array of documents, as MongoDB's manual says
  set_stage,                // the $set aggregation stage (MongoDB 4.2's alias of $addFields)
  decimal_average,          // $avg of Decimal128 values is a Decimal128
  json_schema_validators,   // collection validators with $jsonSchema (create/collMod validator), enforced
  lookup_through_arrays,    // a $lookup localField through arrays of documents ("items.product")
  add_fields_replaces,      // $addFields of an expression replaces a stored sub-document of that name
  huge_skips,               // a find's skip beyond 32 bits skips that many documents
  partial_unique_indexes,   // a unique index with partialFilterExpression leaves other documents out
  collation,                // string comparisons by a collation other than "simple" (locale, strength)
  nan_order,                // NaN sorts below every number, and $gt of a number does not match it
  date_trunc,               // the $dateTrunc aggregation operator (MongoDB 5.0)
  round_expression,         // the $round aggregation operator (MongoDB 4.2)
};

struct EngineGap {
  Engine engine;
  Capability capability;
  std::string_view reason;
};

/// Every capability an engine lacks, and why. To give an engine a capability, delete
/// its line; a test never skips on an engine not listed here.
inline constexpr EngineGap engine_gaps[] = {
    {Engine::mongo_java_server, Capability::date_trunc,
     "it has no $dateTrunc: an aggregate using it fails with \"Unrecognized expression '$dateTrunc'\" (error 168)"},
    {Engine::mongo_java_server, Capability::round_expression,
     "it has no $round: an aggregate using it fails with \"Unrecognized expression '$round'\" (error 168)"},
    {Engine::mongo_java_server, Capability::nan_order,
     "it sorts NaN above every number and matches it with {$gt: 2.5}; MongoDB's sort order puts NaN below every "
     "number (2.5, 5 and NaN sorted ascending came back as 2.5, 5, NaN)"},
    {Engine::odm_test_server, Capability::collation,
     "it compares strings only bytewise: a collation other than {locale: \"simple\"} is refused as not supported "
     "(tests/server/odm_engine.py, check_collation)"},
    {Engine::mongo_java_server, Capability::collation,
     "it ignores a collation: a delete of {group: \"abc\"} with {locale: \"en\", strength: 2} removed \"abc\" "
     "and left \"ABC\"; MongoDB compares strings by the collation, and strength 2 ignores case "
     "(https://www.mongodb.com/docs/manual/reference/collation/#collation-document)"},
    {Engine::mongo_java_server, Capability::sessions,
     "it has no logical sessions (its hello reply has no logicalSessionTimeoutMinutes, so libmongoc starts none)"},
    {Engine::mongo_java_server, Capability::transactions, "it has no sessions, so no transactions"},
    {Engine::mongo_java_server, Capability::replica_set,
     "it answers as a standalone server (no setName), so libmongoc neither retries writes nor tracks cluster time"},
    {Engine::mongo_java_server, Capability::fail_command, "it has no configureFailPoint command"},
    {Engine::mongo_java_server, Capability::union_with,
     "it has no $unionWith stage (error 40324, 'Unrecognized pipeline stage name'), as its maxWireVersion 8 "
     "(MongoDB 4.2) says"},
    {Engine::mongo_java_server, Capability::duplicate_key_details,
     "its duplicate-key write errors carry no keyPattern and no keyValue, only the E11000 message"},
    {Engine::mongo_java_server, Capability::insert_counts,
     "its insert reply counts the refused documents in n (n: 5 for 2 stored of 5 sent, a duplicate at index 2); "
     "MongoDB's n is the number of documents inserted "
     "(https://www.mongodb.com/docs/manual/reference/command/insert/#output), and odm, which checks n against the "
     "writes the reply accounts for, reports such a reply as a ProtocolError with those writes unconfirmed"},
    {Engine::mongo_java_server, Capability::array_filter_checks,
     "it reads a $[x] without an array filter as a field name (error 28, PathNotViable); MongoDB refuses the "
     "update with BadValue (2): each identifier needs exactly one array filter "
     "(https://www.mongodb.com/docs/manual/reference/operator/update/positional-filtered/)"},
    {Engine::mongo_java_server, Capability::large_in_queries,
     "its $in costs grow with the square of the values: a find with a $in of 50,000 values took 18 s over _id "
     "and 37 s over an indexed field (measured on a quiet machine), near or past odm's 30 s socket timeout, and "
     "it goes on working for an abandoned find, starving the tests that run beside it"},
    {Engine::mongo_java_server, Capability::hint_checks,
     "it ignores a hint: one naming no index is not refused; MongoDB refuses it with BadValue (2), \"hint provided "
     "does not correspond to an existing index\""},
    {Engine::mongo_java_server, Capability::unacknowledged_writes,
     "a write sent with w: 0 (OP_MSG with moreToCome) is not applied within 10 s and libmongoc logs \"Failed to "
     "buffer 4 bytes\"; MongoDB applies it without replying "
     "(https://www.mongodb.com/docs/manual/reference/write-concern/#w-option)"},
    {Engine::mongo_java_server, Capability::not_through_arrays,
     "in 3 of the random filter test's 250 rounds (seed 20261124: 73, 107, 222) it finds other documents than "
     "the reference evaluator written from MongoDB's manual and the odm test server, which agree; each of those "
     "filters has $not on a path through an array of documents ({\"subs.x\": {$not: {$lte: 2}}}), which matches "
     "a document only when no element satisfies the condition "
     "(https://www.mongodb.com/docs/manual/reference/operator/query/not/); not yet narrowed further"},
    {Engine::mongo_java_server, Capability::json_schema_validators,
     "it ignores a collection's validator: `create` with a $jsonSchema validator succeeds, listCollections then "
     "shows empty options and a document the schema refuses is stored, and collMod is \"no such command\" (59); "
     "MongoDB refuses such a write with DocumentValidationFailure (121) "
     "(https://www.mongodb.com/docs/manual/core/schema-validation/specify-json-schema/)"},
    {Engine::mongo_java_server, Capability::first_batch_of_101,
     "a find without batchSize gets every document in its first batch; MongoDB answers 101 first "
     "(https://www.mongodb.com/docs/manual/tutorial/iterate-a-cursor/#cursor-batches)"},
    {Engine::mongo_java_server, Capability::set_stage,
     "it has no $set stage (error 40324, 'Unrecognized pipeline stage name'), which MongoDB 4.2 added as an alias "
     "of $addFields (https://www.mongodb.com/docs/manual/reference/operator/aggregation/set/)"},
    {Engine::mongo_java_server, Capability::decimal_average,
     "its $avg of Decimal128 values is a double; MongoDB's average of decimals is a Decimal128 "
     "(https://www.mongodb.com/docs/manual/reference/operator/aggregation/avg/)"},
    {Engine::mongo_java_server, Capability::lookup_through_arrays,
     "its $lookup finds nothing for a localField through an array of documents (\"items.product\", or "
     "\"__odm_0.category\" through the matches of an earlier $lookup), and answers only top-level fields and "
     "arrays of values; MongoDB reads localField as a path, through arrays "
     "(https://www.mongodb.com/docs/manual/reference/operator/aggregation/lookup/#equality-match-with-a-single-join-condition), "
     "so odm's server-side joins through embedded arrays and nested levels need it"},
    {Engine::mongo_java_server, Capability::add_fields_replaces,
     "its $addFields of an expression (\"$$ROOT\") over a stored field holding a sub-document mixes the two; "
     "MongoDB replaces the field (https://www.mongodb.com/docs/manual/reference/operator/aggregation/addFields/: "
     "\"Specifying an existing field name in an $addFields operation causes the original field to be "
     "replaced\"), which the server-side join's copy of each document (`__odm_doc`) relies on when a stored "
     "document has a sub-document of that name"},
    {Engine::mongo_java_server, Capability::huge_skips,
     "its find with a skip beyond 32 bits (2^40, 9223372036854775807) returns every document from the first "
     "(the aggregate's $skip of the same number returns none); MongoDB skips that many "
     "(https://www.mongodb.com/docs/manual/reference/command/find/: skip is a positive integer)"},
    {Engine::mongo_java_server, Capability::partial_unique_indexes,
     "its unique index with a partialFilterExpression ({contact: {$exists: true}}) still refuses a second "
     "document without the field (E11000, dup key { contact: null }); MongoDB applies the unique constraint "
     "only to the documents that meet the filter "
     "(https://www.mongodb.com/docs/manual/core/index-partial/#partial-index-with-unique-constraint)"},
};

/// Why `engine` cannot run a test that needs `capability`, or nullopt when it can.
inline std::optional<std::string> missing_capability(Engine engine, Capability capability) {
  for (const EngineGap& gap : engine_gaps)
    if (gap.engine == engine && gap.capability == capability)
      return std::string("needs a capability ") + std::string(engine_name(engine)) + " lacks: " +
             std::string(gap.reason);
  return std::nullopt;
}

/// Skips the running test, with the reason, when the server's engine lacks the capability
/// (an enumerator of Capability): `ODM_REQUIRE(transactions);`. For a DriverTest's body.
#define ODM_REQUIRE(capability)                                                                                    \
  if (const std::optional<std::string> odm_missing_ = missing_capability(::odm_test::Capability::capability)) \
  GTEST_SKIP() << *odm_missing_

inline std::string server_uri() {
  if (const char* uri = std::getenv("MONGODB_URI"); uri != nullptr && *uri != '\0') return uri;
  const char* file = std::getenv("ODM_TEST_SERVER_URI_FILE");
  if (file == nullptr) return {};
  std::ifstream in(file);
  std::string uri;
  std::getline(in, uri);
  return uri;
}

/// Counts the commands a client sends, by name, and keeps the started `find` commands.
class CommandLog {
 public:
  odm::ClientOptions attach(odm::ClientOptions options = {}) {
    return options.capture_command_documents()
        .on_command_started([this](const odm::CommandEvent& event) {
          std::lock_guard lock(mutex_);
          ++started_[std::string(event.command_name)];
          if (event.document != nullptr) commands_.emplace_back(std::string(event.command_name), *event.document);
        })
        .on_command_succeeded([this](const odm::CommandEvent& event) {
          std::lock_guard lock(mutex_);
          ++succeeded_[std::string(event.command_name)];
        })
        .on_command_failed([this](const odm::CommandEvent& event) {
          std::lock_guard lock(mutex_);
          ++failed_[std::string(event.command_name)];
        });
  }

  int started(const std::string& name) const {
    std::lock_guard lock(mutex_);
    auto it = started_.find(name);
    return it == started_.end() ? 0 : it->second;
  }
  int succeeded(const std::string& name) const {
    std::lock_guard lock(mutex_);
    auto it = succeeded_.find(name);
    return it == succeeded_.end() ? 0 : it->second;
  }
  int failed(const std::string& name) const {
    std::lock_guard lock(mutex_);
    auto it = failed_.find(name);
    return it == failed_.end() ? 0 : it->second;
  }
  /// The names of the commands that failed (each once).
  std::vector<std::string> failed_names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> names;
    for (const auto& [name, count] : failed_) names.push_back(name);
    return names;
  }
  /// The last started command of that name, as sent.
  std::optional<odm::Document> last(const std::string& name) const {
    std::lock_guard lock(mutex_);
    for (auto it = commands_.rbegin(); it != commands_.rend(); ++it)
      if (it->first == name) return it->second;
    return std::nullopt;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    started_.clear();
    succeeded_.clear();
    failed_.clear();
    commands_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> started_;
  std::map<std::string, int> succeeded_;
  std::map<std::string, int> failed_;
  std::vector<std::pair<std::string, odm::Document>> commands_;
};

/// A client on the test server, a database of its own, and a log of its commands.
class DriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = server_uri();
    ASSERT_FALSE(uri_.empty()) << "no server: set MONGODB_URI, or run through ctest (which starts the odm test "
                                  "server and sets ODM_TEST_SERVER_URI_FILE)";
    client_.emplace(uri_, log_.attach());
    engine_ = detect_engine();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("odm_") + info->test_suite_name() + "_" + info->name();
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    if (name.size() > 50) name.resize(50);
    // The process id keeps concurrent runs against one server (MONGODB_URI) apart.
    db_name_ = name + "_" + std::to_string(::getpid());
    client_->database(db_name_).drop();
    log_.clear();
  }

  void TearDown() override {
    if (client_) {
      try {
        client_->database(db_name_).drop();
      } catch (const odm::Error& error) {
        ADD_FAILURE() << "dropping " << db_name_ << ": " << error.what();
      }
    }
  }

  odm::Client& client() { return *client_; }
  odm::Database db() { return client_->database(db_name_); }
  /// The `u` of the first update of the last update command sent (empty when none was).
  odm::Document last_update() {
    const std::optional<odm::Document> command = log_.last("update");
    if (!command) return {};
    bson_iter_t it;
    bson_iter_t u;
    if (!bson_iter_init(&it, command->get()) || !bson_iter_find_descendant(&it, "updates.0.u", &u)) return {};
    return odm::detail::copy_held_document(u);
  }

  /// Which engine answers (found once per test, before its commands are counted).
  Engine engine() const { return engine_; }
  std::optional<std::string> missing_capability(Capability capability) {
    return odm_test::missing_capability(engine(), capability);
  }

  std::string uri_;
  std::string db_name_;
  CommandLog log_;
  std::optional<odm::Client> client_;
  Engine engine_ = Engine::mongodb;

 private:
  /// buildInfo says `odmTestServer: true` on the odm test server and `odmJavaServer: true`
  /// on mongo-java-server; anything else is MongoDB.
  Engine detect_engine() {
    const odm::Document info = client_->database("admin").run_command(odm::Document::from_json(R"({"buildInfo": 1})"));
    const auto says = [&](const char* key) {
      bson_iter_t it;
      return bson_iter_init_find(&it, info.get(), key) && bson_iter_as_bool(&it);
    };
    if (says("odmTestServer")) return Engine::odm_test_server;
    if (says("odmJavaServer")) return Engine::mongo_java_server;
    return Engine::mongodb;
  }
};

/// An Extended JSON literal as a Document.
inline odm::Document json(std::string_view text) { return odm::Document::from_json(text); }

/// The value at a top-level key of a document, as JSON (for messages and comparisons).
inline bool has_key(const odm::Document& document, const char* key) { return bson_has_field(document.get(), key); }

/// The error of type E that `operation` throws, or nullopt when it throws none.
template <class E = odm::ServerError, class F>
std::optional<E> error_of(F&& operation) {
  try {
    std::forward<F>(operation)();
  } catch (const E& error) {
    return error;
  }
  return std::nullopt;
}

}  // namespace odm_test
