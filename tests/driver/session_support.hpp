#pragma once
// Shared by the tests of transactions, retryable writes and causal consistency: a client
// of its own (its appName scopes the fail points), a recorder of every command sent and
// every reply received, and MongoDB's failCommand fail point
// (https://github.com/mongodb/mongo/wiki/The-%22failCommand%22-fail-point), which
// MongoDB's drivers use to test their retry paths.
//
// failCommand is one server-wide setting, so the tests that configure it run one at a
// time (a file lock, CTest runs tests in parallel processes). An engine that lacks a
// replica set or failCommand (support.hpp's engine_gaps: mongo-java-server) skips these
// tests with the reason; on any other engine their absence is a failure (a real mongod
// must be a replica set started with enableTestCommands=1, as docker-compose.yml's is).

#include "support.hpp"

#include <odm/driver/client.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace odm_test {

/// The value at a dotted path of a document, as relaxed JSON of `{"v": value}` (or
/// nullopt when absent), so that any type can be compared in a message-friendly way.
inline std::optional<std::string> value_at(const odm::Document& document, const char* path) {
  bson_iter_t it;
  bson_iter_t found;
  if (!bson_iter_init(&it, document.get()) || !bson_iter_find_descendant(&it, path, &found)) return std::nullopt;
  bson_t wrapper = BSON_INITIALIZER;
  bson_append_value(&wrapper, "v", 1, bson_iter_value(&found));
  odm::Document copy = odm::Document::copy_of(&wrapper);
  bson_destroy(&wrapper);
  return copy.to_json();
}

inline std::int64_t int_at(const odm::Document& document, const char* path) {
  bson_iter_t it;
  bson_iter_t found;
  if (!bson_iter_init(&it, document.get()) || !bson_iter_find_descendant(&it, path, &found)) return -1;
  return bson_iter_as_int64(&found);
}

/// Every command a client sent and every reply it got, in order.
class Recorder {
 public:
  struct Event {
    std::string name;
    odm::CommandEvent::Kind kind;
    odm::Document document;  // the command, or the reply
  };

  odm::ClientOptions attach(odm::ClientOptions options) {
    auto keep = [this](const odm::CommandEvent& event) {
      std::lock_guard lock(mutex_);
      events_.push_back({std::string(event.command_name), event.kind,
                         event.document != nullptr ? *event.document : odm::Document()});
    };
    return options.capture_command_documents().on_command_started(keep).on_command_succeeded(keep).on_command_failed(
        keep);
  }

  /// The commands of that name as sent.
  std::vector<odm::Document> sent(const std::string& name) const { return select(name, odm::CommandEvent::Kind::started); }
  /// The replies to commands of that name that succeeded.
  std::vector<odm::Document> replies(const std::string& name) const {
    return select(name, odm::CommandEvent::Kind::succeeded);
  }
  int attempts(const std::string& name) const { return static_cast<int>(sent(name).size()); }
  void clear() {
    std::lock_guard lock(mutex_);
    events_.clear();
  }

 private:
  std::vector<odm::Document> select(const std::string& name, odm::CommandEvent::Kind kind) const {
    std::lock_guard lock(mutex_);
    std::vector<odm::Document> out;
    for (const Event& event : events_)
      if (event.name == name && event.kind == kind) out.push_back(event.document);
    return out;
  }

  mutable std::mutex mutex_;
  std::vector<Event> events_;
};

/// Holds an exclusive lock on a file named after the server for the life of a test: the
/// tests that configure the (server-wide) fail point do so one at a time. Waits at most
/// two minutes.
class ServerWideLock {
 public:
  explicit ServerWideLock(const std::string& uri) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("odm-failcommand-" + std::to_string(std::hash<std::string>{}(uri)) + ".lock");
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) throw std::runtime_error("cannot open " + path.string());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("waited 2 min for " + path.string());
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ServerWideLock(const ServerWideLock&) = delete;
  ServerWideLock& operator=(const ServerWideLock&) = delete;
  ~ServerWideLock() { ::close(fd_); }  // closing releases the lock

 private:
  int fd_ = -1;
};

/// A test on a replica set (or sharded cluster), with a client named after the test and
/// a recorder of its commands and replies.
class SessionTest : public DriverTest {
 protected:
  void SetUp() override {
    DriverTest::SetUp();
    if (HasFatalFailure()) return;
    ODM_REQUIRE(replica_set);
    const odm::Document hello = client().database("admin").run_command(json(R"({"hello": 1})"));
    ASSERT_TRUE(has_key(hello, "setName") || has_key(hello, "msg"))  // msg: "isdbgrid" from a mongos
        << "the tests of sessions, transactions and retryable writes need a replica set or a sharded cluster "
           "(docker-compose.yml starts one); the server is a standalone: "
        << hello.to_json();
    app_name_ = db_name_;
    client_.emplace(client_uri(), recorder_.attach(odm::ClientOptions{}.app_name(app_name_)));
  }

  void TearDown() override {
    DriverTest::TearDown();
    client_.reset();  // its last commands (endSessions) still reach the recorder
  }

  /// The URI of the test's client (a test may add options).
  virtual std::string client_uri() const { return uri_; }

  Recorder recorder_;
  std::string app_name_;
};

/// A SessionTest that configures the failCommand fail point for its own client.
class FailPointTest : public SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    ODM_REQUIRE(fail_command);
    lock_.emplace(uri_);  // before anything touches the fail point another test may be using
    admin_.emplace(uri_);
    try {
      admin_->database("admin").run_command(json(R"({"configureFailPoint": "failCommand", "mode": "off"})"));
    } catch (const odm::Error& error) {
      FAIL() << "MongoDB's failCommand fail point is needed (mongod --setParameter enableTestCommands=1): "
             << error.what();
    }
  }

  void TearDown() override {
    if (admin_ && !IsSkipped()) {
      try {
        admin_->database("admin").run_command(json(R"({"configureFailPoint": "failCommand", "mode": "off"})"));
      } catch (const odm::Error& error) {
        ADD_FAILURE() << "turning the fail point off: " << error.what();
      }
    }
    SessionTest::TearDown();
  }

  /// Configures failCommand for this test's client only: `mode` is JSON ("alwaysOn",
  /// {"times": n}), `data` the fail point's data without appName.
  void fail_point(const std::string& mode, const std::string& data) {
    std::string fields = data;
    fields.insert(fields.find('{') + 1, R"("appName": ")" + app_name_ + R"(", )");
    admin_->database("admin").run_command(
        json(R"({"configureFailPoint": "failCommand", "mode": )" + mode + R"(, "data": )" + fields + "}"));
  }

  std::optional<odm::Client> admin_;
  std::optional<ServerWideLock> lock_;
};

}  // namespace odm_test
