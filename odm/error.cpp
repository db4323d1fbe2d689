// odm's exception classes: their destructors anchor each class's vtable and type_info in
// the library, and PathError's path handling is compiled once.
#include <odm/error.hpp>
#include "special_members.hpp"

#include <utility>

namespace odm {

Error::~Error() = default;
ValueError::~ValueError() = default;
CurrencyMismatch::~CurrencyMismatch() = default;
NotLoadedError::~NotLoadedError() = default;
DanglingReference::~DanglingReference() = default;
JsonError::~JsonError() = default;
UsageError::~UsageError() = default;
DataError::~DataError() = default;
DecodeError::~DecodeError() = default;
EncodeError::~EncodeError() = default;

namespace detail {
void throw_past_the_end(const char* call, std::size_t position, std::size_t size) {
  throw UsageError(std::string(call) + ": position " + std::to_string(position) + " is past the end (size " +
                   std::to_string(size) + ")");
}
}  // namespace detail

PathError::PathError(std::string reason) : Error(reason), reason_(std::move(reason)), message_(reason_) {}
PathError::~PathError() = default;
ODM_DEFINE_COPIES_AND_MOVES(PathError);

std::string PathError::path() const {
  std::string out;
  for (auto step = steps_.rbegin(); step != steps_.rend(); ++step) {
    if (step != steps_.rbegin()) out += '.';
    out += *step;
  }
  return out;
}

void PathError::prepend(std::string_view key) {
  steps_.emplace_back(key);
  message_ = shown_path() + ": " + reason_;
}

void PathError::prepend_path_of(const PathError& inner) {
  if (inner.steps_.empty()) return;
  steps_.insert(steps_.end(), inner.steps_.begin(), inner.steps_.end());
  message_ = shown_path() + ": " + reason_;
}

void PathError::append_to_reason(std::string_view context) {
  reason_ += context;
  message_ = steps_.empty() ? reason_ : shown_path() + ": " + reason_;
}

std::string PathError::shown_path() const {
  std::string out;
  const std::size_t count = steps_.size();
  for (std::size_t i = 0; i < count; ++i) {  // outermost first
    if (i != 0) out += '.';
    if (count > 2 * shown_steps && i == shown_steps) {
      out += "(" + std::to_string(count - 2 * shown_steps) + " more levels)";
      i = count - shown_steps - 1;
      continue;
    }
    const std::string& step = steps_[count - 1 - i];
    out.append(step, 0, step_limit);
    if (step.size() > step_limit) out += "...";
  }
  return out;
}

}  // namespace odm
