#pragma once
// Read preference, read concern and write concern: where a read may go, what it may see,
// and what a write waits for. Each can be set on the client (ClientOptions), a database,
// a collection and a single operation; the narrower one wins (operation > collection >
// database > client > the URI's options), as in MongoDB's own drivers.
//
//   auto orders = db.collection<Order>().write_concern(odm::WriteConcern::majority().timeout(2s));
//   orders.find(f, odm::FindOptions<Order>{}.read_preference(
//                      odm::ReadPreference(odm::ReadMode::secondary_preferred).max_staleness(120s)));
//
// Each value is checked when it is built: an invalid combination (tags or a staleness
// bound with `primary`, `j: true` on an unacknowledged write, a negative timeout) throws
// odm::ConfigurationError before anything is sent.

#include <odm/driver/errors.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace odm {

namespace detail {
/// Refuses a string an option would send that is not UTF-8 (BSON strings are UTF-8),
/// naming the option; `what` is e.g. "collation: the locale".
void check_option_text(std::string_view text, std::string_view what);
}  // namespace detail

/// Which members of a replica set a read may go to (MongoDB's read preference modes).
enum class ReadMode { primary, primary_preferred, secondary, secondary_preferred, nearest };

/// One tag set: a member qualifies when it carries every tag (`{dc: "east", use: "reports"}`).
/// An empty tag set matches every member.
using TagSet = std::vector<std::pair<std::string, std::string>>;

// g++ 12 reports a false -Wmaybe-uninitialized on the implicit copy and move of an empty
// std::optional<ReadPreference> when it inlines them (under -fsanitize=thread); the
// warning is located at this class's head.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// A read preference: a mode, optionally tag sets (tried in order) and a staleness bound.
class ReadPreference {
 public:
  /// The smallest staleness bound MongoDB accepts (server selection specification).
  static constexpr std::chrono::seconds smallest_max_staleness{90};

  explicit ReadPreference(ReadMode mode = ReadMode::primary) noexcept : mode_(mode) {}

  /// The tag sets a member must match, in order of preference. Not allowed with `primary`.
  ReadPreference& tag_sets(std::vector<TagSet> sets);
  /// Avoid secondaries that lag the primary by more than `bound` (maxStalenessSeconds).
  /// At least 90 s; not allowed with `primary`.
  ReadPreference& max_staleness(std::chrono::seconds bound);

  ReadMode mode() const noexcept { return mode_; }
  const std::vector<TagSet>& tag_sets() const noexcept { return tag_sets_; }
  const std::optional<std::chrono::seconds>& max_staleness() const noexcept { return max_staleness_; }

 private:
  ReadMode mode_;
  std::vector<TagSet> tag_sets_;
  std::optional<std::chrono::seconds> max_staleness_;
};
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// MongoDB's read concern levels.
enum class ReadConcernLevel { local, majority, linearizable, snapshot, available };

/// What a read may see. `linearizable` reads only from the primary (checked per operation).
class ReadConcern {
 public:
  explicit ReadConcern(ReadConcernLevel level) noexcept : level_(level) {}
  static ReadConcern local() noexcept { return ReadConcern(ReadConcernLevel::local); }
  static ReadConcern majority() noexcept { return ReadConcern(ReadConcernLevel::majority); }
  static ReadConcern linearizable() noexcept { return ReadConcern(ReadConcernLevel::linearizable); }
  static ReadConcern snapshot() noexcept { return ReadConcern(ReadConcernLevel::snapshot); }
  static ReadConcern available() noexcept { return ReadConcern(ReadConcernLevel::available); }

  ReadConcernLevel level() const noexcept { return level_; }

 private:
  ReadConcernLevel level_;
};

/// What a write waits for: `w` (a number of members, "majority" or a tag set name), the
/// journal (`j`) and a time limit for that wait (`wtimeout`). Unset parts are the server's
/// defaults.
class WriteConcern {
 public:
  /// Nothing set: the server's default write concern.
  WriteConcern() = default;
  /// `w: "majority"`.
  static WriteConcern majority();
  /// `w: n`, acknowledged by n members (0: unacknowledged, nothing is confirmed).
  static WriteConcern nodes(std::int32_t n);
  /// `w: 0`: fire and forget. A write's result then counts nothing.
  static WriteConcern unacknowledged() { return nodes(0); }
  /// `w: "<name>"`: the members of a custom write concern the replica set defines.
  static WriteConcern tagged(std::string name);

  /// `j`: wait until the write is in the journal. Not allowed with `w: 0`.
  WriteConcern& journal(bool value = true);
  /// `wtimeout`: how long the server waits for `w` before it reports a write concern error
  /// (the write itself stays applied). Zero means no limit; negative is an error.
  WriteConcern& timeout(std::chrono::milliseconds limit);

  struct Majority {
    friend bool operator==(Majority, Majority) = default;
  };
  /// Unset (monostate), a number of members, majority, or a tag set name.
  using W = std::variant<std::monostate, std::int32_t, Majority, std::string>;
  const W& w() const noexcept { return w_; }
  const std::optional<bool>& journal() const noexcept { return journal_; }
  const std::optional<std::chrono::milliseconds>& timeout() const noexcept { return timeout_; }

 private:
  bool unacknowledged_w() const noexcept {
    const auto* n = std::get_if<std::int32_t>(&w_);
    return n != nullptr && *n == 0;
  }

  W w_;
  std::optional<bool> journal_;
  std::optional<std::chrono::milliseconds> timeout_;
};

/// How strings compare (MongoDB's collation document). `locale` is required ("simple" is
/// binary comparison); the rest are the server's defaults when unset.
class Collation {
 public:
  explicit Collation(std::string locale);
  /// 1 (base letters) to 5 (identical); the server's default is 3.
  Collation& strength(std::int32_t level);
  Collation& case_level(bool value = true) {
    case_level_ = value;
    return *this;
  }
  /// Compare digit runs as numbers ("10" after "9").
  Collation& numeric_ordering(bool value = true) {
    numeric_ordering_ = value;
    return *this;
  }

  const std::string& locale() const noexcept { return locale_; }
  const std::optional<std::int32_t>& strength() const noexcept { return strength_; }
  const std::optional<bool>& case_level() const noexcept { return case_level_; }
  const std::optional<bool>& numeric_ordering() const noexcept { return numeric_ordering_; }

 private:
  std::string locale_;
  std::optional<std::int32_t> strength_;
  std::optional<bool> case_level_;
  std::optional<bool> numeric_ordering_;
};

namespace detail {

/// The settings of one level (client, database, collection, operation); unset ones fall
/// through to the level above.
struct Concerns {
  Concerns() = default;
  Concerns(std::optional<ReadPreference> read_preference, std::optional<ReadConcern> read_concern,
           std::optional<WriteConcern> write_concern);
  // Copied, moved and destroyed in the library (odm/driver/concerns.cpp): compiled once, not in every file.
  Concerns(const Concerns&);
  Concerns(Concerns&&) noexcept;
  Concerns& operator=(const Concerns&);
  Concerns& operator=(Concerns&&) noexcept;
  ~Concerns();

  std::optional<ReadPreference> read_preference;
  std::optional<ReadConcern> read_concern;
  std::optional<WriteConcern> write_concern;

  bool empty() const noexcept { return !read_preference && !read_concern && !write_concern; }
  /// These settings over `below`'s.
  Concerns over(const Concerns& below) const;
};

}  // namespace detail

}  // namespace odm
