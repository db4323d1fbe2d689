// libmongoc's process-wide log handler, forwarding to odm's (odm/driver/log.hpp).
#include "state.hpp"

#include <odm/driver/log.hpp>

#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>

namespace odm {
namespace {

std::mutex& handler_mutex() {
  static std::mutex mutex;
  return mutex;
}

/// The handler in force; replaced whole, so that a call in progress keeps its own copy.
/// Never destroyed: libmongoc's monitoring threads may still log while statics are torn down.
std::shared_ptr<const LogHandler>& current_handler() {
  static auto* handler = new std::shared_ptr<const LogHandler>(std::make_shared<const LogHandler>(default_log_handler));
  return *handler;
}

void forward(mongoc_log_level_t level, const char* domain, const char* message, void* /*user_data*/) noexcept {
  std::shared_ptr<const LogHandler> handler;
  {
    const std::lock_guard lock(handler_mutex());
    handler = current_handler();
  }
  if (!*handler) return;
  const LogRecord record{static_cast<LogLevel>(level), domain != nullptr ? domain : "",
                         message != nullptr ? message : ""};
  try {
    (*handler)(record);
  } catch (...) {  // libmongoc is C: nothing may unwind into it
  }
}

static_assert(static_cast<int>(LogLevel::error) == MONGOC_LOG_LEVEL_ERROR &&
              static_cast<int>(LogLevel::warning) == MONGOC_LOG_LEVEL_WARNING &&
              static_cast<int>(LogLevel::trace) == MONGOC_LOG_LEVEL_TRACE);

}  // namespace

std::string_view to_string(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::error: return "error";
    case LogLevel::critical: return "critical";
    case LogLevel::warning: return "warning";
    case LogLevel::message: return "message";
    case LogLevel::info: return "info";
    case LogLevel::debug: return "debug";
    case LogLevel::trace: return "trace";
  }
  return "unknown";
}

void default_log_handler(const LogRecord& record) {
  if (record.level > LogLevel::warning) return;
  const std::string_view level = to_string(record.level);
  std::fprintf(stderr, "libmongoc %.*s [%.*s]: %.*s\n", static_cast<int>(level.size()), level.data(),
               static_cast<int>(record.domain.size()), record.domain.data(), static_cast<int>(record.message.size()),
               record.message.data());
}

void set_log_handler(LogHandler handler) {
  auto replacement = std::make_shared<const LogHandler>(std::move(handler));
  {
    const std::lock_guard lock(handler_mutex());
    current_handler() = std::move(replacement);
  }
  detail::install_log_forwarding();
}

void reset_log_handler() { set_log_handler(default_log_handler); }

namespace detail {
void install_log_forwarding() {
  static std::once_flag once;
  std::call_once(once, [] { mongoc_log_set_handler(forward, nullptr); });
}
}  // namespace detail

}  // namespace odm
