#pragma once
// What every scenario example shares: where the server is, which database to use, how to
// print what was stored and read back, and how to fail loudly when odm misbehaves.
//
// The server: $MONGODB_URI, else the first line of the file named by
// $ODM_TEST_SERVER_URI_FILE (how CTest hands over the test server it started). The
// database: $ODM_EXAMPLES_DB, else "odm_examples". The examples leave their documents
// there, so what they wrote can be inspected with any MongoDB client.

#include <odm/driver/client.hpp>
#include <odm/index/sync.hpp>
#include <odm/odm.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace example {

/// The client on $MONGODB_URI or on the test server CTest started, with `options` (e.g. a
/// command monitor); exits with 2 when neither is given.
inline odm::Client connect(odm::ClientOptions options = {}) {
  std::string uri;
  if (const char* env = std::getenv("MONGODB_URI"); env != nullptr && *env != '\0') {
    uri = env;
  } else if (const char* file = std::getenv("ODM_TEST_SERVER_URI_FILE"); file != nullptr && *file != '\0') {
    std::ifstream in(file);
    std::getline(in, uri);
    if (uri.empty()) {
      std::cerr << "error: ODM_TEST_SERVER_URI_FILE names " << file << ", which holds no URI\n";
      std::exit(2);
    }
  } else {
    std::cerr << "error: no MongoDB server: set MONGODB_URI (e.g. mongodb://localhost:27017), or run the "
                 "examples with scripts/examples.sh or ctest -L example, which start the test server\n";
    std::exit(2);
  }
  std::cout << "server: " << uri << "\n";
  options.server_selection_timeout(std::chrono::seconds(10)).app_name("odm-examples");
  return odm::Client(uri, options);
}

/// The database named by $ODM_EXAMPLES_DB, "odm_examples" by default.
inline odm::Database examples_db(const odm::Client& client) {
  const char* env = std::getenv("ODM_EXAMPLES_DB");
  std::string name = env != nullptr && *env != '\0' ? env : "odm_examples";
  std::cout << "database: " << name << "\n";
  return client.database(std::move(name));
}

/// `label: <relaxed Extended JSON>`.
template <class T>
void show(std::string_view label, const T& value) {
  std::cout << label << ": " << odm::to_json(value) << "\n";
}
inline void show(std::string_view label, const odm::Document& value) {
  std::cout << label << ": " << value.to_json() << "\n";
}
/// Each element on a line of its own, under `label`.
template <class T>
void show_all(std::string_view label, const std::vector<T>& values) {
  std::cout << label << " (" << values.size() << "):\n";
  for (const T& value : values) std::cout << "  " << odm::to_json(value) << "\n";
}

/// A heading for the next step.
inline void step(std::string_view what) { std::cout << "\n-- " << what << "\n"; }

/// Prints `ok: what`, or `FAILED: what` and exits with 1.
inline void check(bool ok, std::string_view what) {
  if (!ok) {
    std::cout << std::flush;
    std::cerr << "FAILED: " << what << "\n";
    std::exit(1);
  }
  std::cout << "ok: " << what << "\n";
}

/// Syncs the models' indexes and prints the report.
template <class... Models>
odm::IndexSyncReport sync_indexes(const odm::Database& db) {
  odm::IndexSyncReport report = odm::sync_indexes<Models...>(db);
  const std::string text = report.to_string();
  std::cout << "indexes:\n" << (text.empty() ? std::string("  (none planned)\n") : text);
  if (!text.empty() && text.back() != '\n') std::cout << "\n";
  check(report.differing.empty(), "every planned index exists as declared");
  return report;
}

/// Runs an example's body, turning an odm error into a message and exit code 1.
template <class Body>
int run(Body&& body) {
  try {
    body();
    std::cout << "\ndone\n";
    return 0;
  } catch (const std::exception& error) {
    std::cout << std::flush;
    std::cerr << "error: " << error.what() << "\n";
    return 1;
  }
}

/// ISODate("2019-02-18"): midnight UTC.
inline std::chrono::sys_days day(int y, unsigned m, unsigned d) {
  return std::chrono::sys_days(std::chrono::year_month_day(std::chrono::year(y), std::chrono::month(m), std::chrono::day(d)));
}
/// ISODate("2015-08-15T10:06:53.000Z").
inline std::chrono::system_clock::time_point instant(int y, unsigned m, unsigned d, int hour = 0, int minute = 0,
                                                     int second = 0, int millis = 0) {
  using namespace std::chrono;
  return time_point_cast<system_clock::duration>(day(y, m, d) + hours(hour) + minutes(minute) + seconds(second) +
                                                 milliseconds(millis));
}
/// A new Date(): now, to the millisecond (what MongoDB stores).
inline std::chrono::system_clock::time_point now() {
  using namespace std::chrono;
  return time_point_cast<system_clock::duration>(time_point_cast<milliseconds>(system_clock::now()));
}

inline odm::ObjectId oid(std::string_view hex) { return odm::ObjectId::parse(hex); }

}  // namespace example
