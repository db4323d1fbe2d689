#pragma once
// Shared by the integration tests: where the server is, a client per test, a database
// per test (dropped at the end), and a command counter built on command monitoring.
//
// The server: $MONGODB_URI when set (a real mongod, e.g. docker-compose.yml's replica
// set), else the odm test server the CTest fixture started, whose URI is in the file
// named by $ODM_TEST_SERVER_URI_FILE.

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
#include <utility>
#include <vector>

namespace odm_test {

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

  /// buildInfo says `odmTestServer: true` on the stand-in server.
  bool on_test_server() {
    const odm::Document info = client_->database("admin").run_command(odm::Document::from_json(R"({"buildInfo": 1})"));
    bson_iter_t it;
    return bson_iter_init_find(&it, info.get(), "odmTestServer") && bson_iter_as_bool(&it);
  }

  std::string uri_;
  std::string db_name_;
  CommandLog log_;
  std::optional<odm::Client> client_;
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
