#pragma once
// libmongoc's log, routed to the application.
//
//   odm::set_log_handler([&](const odm::LogRecord& r) {
//     if (r.level <= odm::LogLevel::warning) my_logger.warn("{} {}", r.domain, r.message);
//   });
//
// libmongoc reports what it notices on its own (a server it cannot reach, a session it
// could not end, a deprecated option) through one process-wide log handler. odm installs
// its own when the first odm::Client is created (or set_log_handler is called), and passes
// each record to the handler set here, or to default_log_handler.
//
// The default is quiet unless something is wrong: warnings and more severe go to stderr,
// one line each; libmongoc's message/info/debug/trace lines go nowhere. A warning is
// libmongoc's word for something an operator should see (a connection that failed, an
// option it ignored); the levels below describe normal operation, and a service that
// wants them sets a handler and keeps what it needs.
//
// Thread safety: there is one handler per process, as in libmongoc
// (mongoc_log_set_handler is global). set_log_handler may be called from any thread at
// any time; libmongoc calls the handler from whichever thread logs, including its
// background monitoring threads, one record at a time. A handler must not throw (what it
// throws is dropped) and must not call odm or libmongoc: it runs under libmongoc's log
// lock, which a nested log line would take again.

#include <functional>
#include <string_view>

namespace odm {

/// libmongoc's levels, most severe first (mongoc_log_level_t), so `level <= warning`
/// reads "warning or worse".
enum class LogLevel { error, critical, warning, message, info, debug, trace };

/// "error", "critical", "warning", "message", "info", "debug", "trace".
std::string_view to_string(LogLevel level) noexcept;

/// One line of libmongoc's log. The views are valid during the handler call only.
struct LogRecord {
  LogLevel level;
  std::string_view domain;   // libmongoc's log domain: "mongoc", "cluster", "monitor", "client", ...
  std::string_view message;
};

using LogHandler = std::function<void(const LogRecord&)>;

/// Routes libmongoc's log to `handler` (an empty handler discards everything). Process-wide.
void set_log_handler(LogHandler handler);
/// Back to default_log_handler.
void reset_log_handler();
/// odm's default: records of level warning or more severe, to stderr, as
/// "libmongoc <level> [<domain>]: <message>"; nothing else.
void default_log_handler(const LogRecord& record);

}  // namespace odm
