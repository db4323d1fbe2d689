// libmongoc's log reaches the application's handler with its level and domain, and odm's
// default handler prints only what is wrong (odm/driver/log.hpp). Needs no server: a
// closed port and an unknown URI option make libmongoc log on its own.

#include "models.hpp"

#include <odm/driver/client.hpp>
#include <odm/driver/log.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace odm_test {
namespace {

struct Logged {
  odm::LogLevel level;
  std::string domain;
  std::string message;
};

/// Collects what libmongoc logs (from any thread) while it lives; restores the default after.
class LogCapture {
 public:
  LogCapture() {
    odm::set_log_handler([this](const odm::LogRecord& record) {
      const std::lock_guard lock(mutex_);
      records_.push_back(Logged{record.level, std::string(record.domain), std::string(record.message)});
    });
  }
  ~LogCapture() { odm::reset_log_handler(); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<Logged> records() const {
    const std::lock_guard lock(mutex_);
    return records_;
  }
  bool has(odm::LogLevel level, const std::string& domain, const std::string& part) const {
    for (const Logged& r : records())
      if (r.level == level && r.domain == domain && r.message.find(part) != std::string::npos) return true;
    return false;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Logged> records_;
};

constexpr auto short_wait = std::chrono::milliseconds(300);

/// An operation against a port nothing listens on (port 9, discard): libmongoc's monitor
/// logs the failed connection at debug level while the operation waits for a server.
void fail_to_connect(const std::string& uri) {
  odm::Client client(uri, odm::ClientOptions{}.server_selection_timeout(short_wait));
  EXPECT_THROW(client.database("odm_log").collection<Counter>().count(), odm::ConnectionError);
}

TEST(LibmongocLog, TheHandlerReceivesLibmongocsRecordsWithLevelAndDomain) {
  LogCapture capture;
  fail_to_connect("mongodb://127.0.0.1:9/?foo=1");
  // A URI option libmongoc does not know: a warning of the "mongoc" domain.
  EXPECT_TRUE(capture.has(odm::LogLevel::warning, "mongoc", "Unsupported URI option \"foo\""));
  // The monitor's failed connection: a debug line of the "monitor" domain.
  EXPECT_TRUE(capture.has(odm::LogLevel::debug, "monitor", "Failed to connect"));
}

TEST(LibmongocLog, TheReadmesHandlerKeepsWarningsWithTheirDomain) {
  std::ostringstream service_log;
  odm::set_log_handler([&](const odm::LogRecord& record) {
    if (record.level <= odm::LogLevel::warning)  // error, critical, warning: more severe compares smaller
      service_log << "libmongoc " << odm::to_string(record.level) << " [" << record.domain << "]: " << record.message
                  << '\n';
  });
  fail_to_connect("mongodb://127.0.0.1:9/?foo=1");  // the client and its monitor are gone after this
  odm::reset_log_handler();
  EXPECT_NE(service_log.str().find("libmongoc warning [mongoc]: Unsupported URI option \"foo\"\n"), std::string::npos)
      << service_log.str();
  EXPECT_EQ(service_log.str().find("Failed to connect"), std::string::npos) << "a debug line passed the filter";
}

TEST(LibmongocLog, TheDefaultPrintsWarningsAndNothingBelow) {
  odm::reset_log_handler();
  testing::internal::CaptureStderr();
  fail_to_connect("mongodb://127.0.0.1:9/?foo=1");
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("libmongoc warning [mongoc]: Unsupported URI option \"foo\""), std::string::npos) << printed;
  EXPECT_EQ(printed.find("Failed to connect"), std::string::npos) << "a debug line was printed:\n" << printed;
  EXPECT_EQ(printed.find("debug"), std::string::npos) << printed;
}

TEST(LibmongocLog, AnEmptyHandlerDiscardsEverythingAndAThrowingOneIsContained) {
  odm::set_log_handler(nullptr);
  testing::internal::CaptureStderr();
  fail_to_connect("mongodb://127.0.0.1:9/?foo=1");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  // What a handler throws does not unwind into libmongoc (which is C).
  std::atomic<int> calls = 0;
  odm::set_log_handler([&](const odm::LogRecord&) {
    ++calls;
    throw std::runtime_error("handler failed");
  });
  fail_to_connect("mongodb://127.0.0.1:9/?foo=1");
  EXPECT_GT(calls, 0);
  odm::reset_log_handler();
}

TEST(LibmongocLog, LevelsReadAsTheirNames) {
  EXPECT_EQ(odm::to_string(odm::LogLevel::error), "error");
  EXPECT_EQ(odm::to_string(odm::LogLevel::warning), "warning");
  EXPECT_EQ(odm::to_string(odm::LogLevel::debug), "debug");
  EXPECT_LT(odm::LogLevel::critical, odm::LogLevel::warning) << "more severe compares smaller";
}

}  // namespace
}  // namespace odm_test
