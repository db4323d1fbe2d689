// The checks of read preferences, write concerns and collations (odm/driver/concerns.hpp),
// compiled once here instead of in every file that names an option.
#include <odm/driver/concerns.hpp>
#include "special_members.hpp"

#include <odm/bson/utf8.hpp>

namespace odm {

namespace detail {
void check_option_text(std::string_view text, std::string_view what) {
  if (!is_valid_utf8(text.data(), text.size())) throw ConfigurationError(std::string(what) + " is not valid UTF-8");
}

Concerns::Concerns(std::optional<ReadPreference> read_preference, std::optional<ReadConcern> read_concern,
                   std::optional<WriteConcern> write_concern)
    : read_preference(std::move(read_preference)),
      read_concern(read_concern),
      write_concern(std::move(write_concern)) {}
ODM_DEFINE_SPECIAL_MEMBERS(Concerns);

Concerns Concerns::over(const Concerns& below) const {
  return Concerns{read_preference ? read_preference : below.read_preference,
                  read_concern ? read_concern : below.read_concern,
                  write_concern ? write_concern : below.write_concern};
}
}  // namespace detail

ReadPreference& ReadPreference::tag_sets(std::vector<TagSet> sets) {
  if (mode_ == ReadMode::primary && !sets.empty())
    throw ConfigurationError("read preference: tag sets cannot be combined with mode primary");
  for (const TagSet& set : sets)
    for (const auto& [name, value] : set) {
      // A tag name is a BSON key: a NUL would cut it short.
      if (name.empty() || name.find('\0') != std::string::npos)
        throw ConfigurationError("read preference: a tag name is empty or contains a NUL character");
      detail::check_option_text(name, "read preference: a tag name");
      detail::check_option_text(value, "read preference: the value of tag \"" + name + "\"");
    }
  tag_sets_ = std::move(sets);
  return *this;
}

ReadPreference& ReadPreference::max_staleness(std::chrono::seconds bound) {
  if (mode_ == ReadMode::primary)
    throw ConfigurationError("read preference: maxStalenessSeconds cannot be combined with mode primary");
  if (bound < smallest_max_staleness)
    throw ConfigurationError("read preference: maxStalenessSeconds must be at least 90, not " +
                             std::to_string(bound.count()));
  max_staleness_ = bound;
  return *this;
}

WriteConcern WriteConcern::majority() {
  WriteConcern concern;
  concern.w_ = Majority{};
  return concern;
}

WriteConcern WriteConcern::nodes(std::int32_t n) {
  if (n < 0) throw ConfigurationError("write concern: w must be at least 0, not " + std::to_string(n));
  WriteConcern concern;
  concern.w_ = n;
  return concern;
}

WriteConcern WriteConcern::tagged(std::string name) {
  if (name.empty()) throw ConfigurationError("write concern: the name of a tagged write concern is empty");
  detail::check_option_text(name, "write concern: the name of a tagged write concern");
  if (name == "majority") return majority();
  WriteConcern concern;
  concern.w_ = std::move(name);
  return concern;
}

WriteConcern& WriteConcern::journal(bool value) {
  if (value && unacknowledged_w()) throw ConfigurationError("write concern: j: true cannot be combined with w: 0");
  journal_ = value;
  return *this;
}

WriteConcern& WriteConcern::timeout(std::chrono::milliseconds limit) {
  if (limit.count() < 0)
    throw ConfigurationError("write concern: wtimeout must not be negative, not " + std::to_string(limit.count()));
  timeout_ = limit;
  return *this;
}

Collation::Collation(std::string locale) : locale_(std::move(locale)) {
  if (locale_.empty()) throw ConfigurationError("collation: the locale is empty");
  detail::check_option_text(locale_, "collation: the locale");
}

Collation& Collation::strength(std::int32_t level) {
  if (level < 1 || level > 5)
    throw ConfigurationError("collation: strength must be 1 to 5, not " + std::to_string(level));
  strength_ = level;
  return *this;
}

}  // namespace odm
