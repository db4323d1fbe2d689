#pragma once
// Options of the client and of each operation: small value types whose setters return
// *this, so they read as one expression,
//
//   auto cursor = books.find(filter, odm::FindOptions<Book>{}.sort(by_date).limit(10).batch_size(50));
//
// An option that was not set is not sent (the server's own default applies), except
// `ordered` on writes: libmongoc 1.23 writes `ordered` into every insert, update and
// delete command it sends, true unless InsertManyOptions/BulkWriteOptions::ordered(false)
// (true is also MongoDB's default).

#include <odm/bson/codec.hpp>
#include <odm/bson/document.hpp>
#include <odm/bson/members.hpp>
#include <odm/driver/concerns.hpp>
#include <odm/driver/errors.hpp>
#include <odm/query/expression.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm {

// ----------------------------------------------------------------------------------
// Command monitoring (libmongoc APM)

/// One command the driver sent, seen at its start, success or failure. The string views
/// and `document` are valid only during the callback: copy what you keep.
struct CommandEvent {
  enum class Kind { started, succeeded, failed };
  Kind kind = Kind::started;
  /// "find", "getMore", "insert", "update", "aggregate", ...
  std::string_view command_name;
  /// The database the command ran on (started events only; "" for the others).
  std::string_view database_name;
  /// Pairs a started event with its succeeded/failed event.
  std::int64_t request_id = 0;
  /// Groups the commands of one operation (a find and its getMores share it).
  std::int64_t operation_id = 0;
  /// "host:port" of the server.
  std::string_view host;
  /// Round-trip time (succeeded/failed only).
  std::chrono::microseconds duration{0};
  /// The command (started) or the reply (succeeded/failed), when the monitor was asked
  /// to capture documents (CommandMonitor::capture_documents); nullptr otherwise.
  const Document* document = nullptr;
  /// The error (failed only).
  std::string_view error_message;
};

/// Callbacks for every command the client's pool sends. They run on whichever thread
/// runs the operation, so they must be thread-safe; an exception they throw is swallowed
/// (it cannot travel through libmongoc).
struct CommandMonitor {
  std::function<void(const CommandEvent&)> started;
  std::function<void(const CommandEvent&)> succeeded;
  std::function<void(const CommandEvent&)> failed;
  /// Copy each command and reply into CommandEvent::document (costs a copy per command).
  bool capture_documents = false;

  bool enabled() const noexcept { return started || succeeded || failed; }
};

/// How odm::Client connects. Every wait has a limit, taken from the first of: the option
/// set here, the URI's option (named in brackets), odm's default (beside each setter).
/// Client::limits() says which values a client runs with.
class ClientOptions {
 public:
  ClientOptions() = default;
  // Copied, moved and destroyed in the library (odm/driver/options.cpp): compiled once, not in every file.
  ClientOptions(const ClientOptions&);
  ClientOptions(ClientOptions&&) noexcept;
  ClientOptions& operator=(const ClientOptions&);
  ClientOptions& operator=(ClientOptions&&) noexcept;
  ~ClientOptions();

  /// How long an operation waits for a usable server before it fails with
  /// odm::ConnectionError [serverSelectionTimeoutMS]. Default 10 s.
  ClientOptions& server_selection_timeout(std::chrono::milliseconds timeout);
  /// How long opening a connection (TCP, TLS and the handshake) may take; also the
  /// limit on each heartbeat of the server monitor [connectTimeoutMS]. Default 10 s.
  ClientOptions& connect_timeout(std::chrono::milliseconds timeout);
  /// How long a sent command may wait for its reply before the operation fails with
  /// odm::ConnectionError [socketTimeoutMS]. Default 30 s (libmongoc's own is 5 min);
  /// raise it above the longest `max_time` a query may run for.
  ClientOptions& socket_timeout(std::chrono::milliseconds timeout);
  /// How long an operation waits for a free pooled connection before it fails with
  /// odm::PoolExhausted [waitQueueTimeoutMS]. Default 10 s.
  ClientOptions& pool_wait_timeout(std::chrono::milliseconds timeout);
  /// Upper bound on connections (pooled clients) open at once; each running operation,
  /// open cursor and session holds one [maxPoolSize]. Default 100.
  ClientOptions& max_pool_size(std::uint32_t size);
  /// The application name the server logs for each connection.
  ClientOptions& app_name(std::string name);
  ClientOptions& on_command_started(std::function<void(const CommandEvent&)> callback);
  ClientOptions& on_command_succeeded(std::function<void(const CommandEvent&)> callback);
  ClientOptions& on_command_failed(std::function<void(const CommandEvent&)> callback);
  /// Pass each command and reply document to the callbacks (CommandEvent::document).
  ClientOptions& capture_command_documents(bool capture = true);
  ClientOptions& command_monitor(CommandMonitor monitor);
  /// The client's read preference, read concern and write concern (over the URI's
  /// readPreference, readConcernLevel, w, journal, wtimeoutMS); databases, collections
  /// and operations override them.
  ClientOptions& read_preference(ReadPreference preference);
  ClientOptions& read_concern(ReadConcern concern);
  ClientOptions& write_concern(WriteConcern concern);

  const std::optional<std::chrono::milliseconds>& server_selection_timeout() const noexcept {
    return server_selection_timeout_;
  }
  const std::optional<std::chrono::milliseconds>& connect_timeout() const noexcept { return connect_timeout_; }
  const std::optional<std::chrono::milliseconds>& socket_timeout() const noexcept { return socket_timeout_; }
  const std::optional<std::chrono::milliseconds>& pool_wait_timeout() const noexcept { return pool_wait_timeout_; }
  const std::optional<std::uint32_t>& max_pool_size() const noexcept { return max_pool_size_; }
  const std::optional<std::string>& app_name() const noexcept { return app_name_; }
  const CommandMonitor& command_monitor() const noexcept { return monitor_; }
  const std::optional<ReadPreference>& read_preference() const noexcept { return concerns_.read_preference; }
  const std::optional<ReadConcern>& read_concern() const noexcept { return concerns_.read_concern; }
  const std::optional<WriteConcern>& write_concern() const noexcept { return concerns_.write_concern; }

 private:
  std::optional<std::chrono::milliseconds> server_selection_timeout_;
  std::optional<std::chrono::milliseconds> connect_timeout_;
  std::optional<std::chrono::milliseconds> socket_timeout_;
  std::optional<std::chrono::milliseconds> pool_wait_timeout_;
  std::optional<std::uint32_t> max_pool_size_;
  std::optional<std::string> app_name_;
  CommandMonitor monitor_;
  detail::Concerns concerns_;
};

// ----------------------------------------------------------------------------------
// Operations
//
// Each operation's options are typed by the collection's model T, so a sort, projection
// or hint over another model does not compile. What the commands share (comment, time
// limit, read preference, read and write concern, hint, collation) is in one base,
// OperationOptions, and reaches the command in one place (odm/driver/collection.cpp).
// Each operation offers only what its command takes.

/// Which version of the document find_one_and_update/replace returns.
enum class ReturnDocument { before, after };

namespace detail {

/// The settings every command may carry. An operation's options class exposes the
/// setters of the ones its command takes.
struct CommonSpec {
  // Out of line (odm/driver/options.cpp), as are the special members of each *Spec below:
  // every options object an operation takes is made, copied and destroyed through them,
  // and inline they would expand the destruction of each optional, Document and concern in
  // every call site of every model.
  CommonSpec();
  CommonSpec(const CommonSpec&);
  CommonSpec(CommonSpec&&) noexcept;
  CommonSpec& operator=(const CommonSpec&);
  CommonSpec& operator=(CommonSpec&&) noexcept;
  ~CommonSpec();

  Concerns concerns;
  std::optional<std::string> comment;
  std::optional<std::chrono::milliseconds> max_time;
  /// `{}` when unset; else `{hint: "name"}` or `{hint: {keys}}`.
  Document hint;
  std::optional<Collation> collation;

  /// Whether a setting a per-write statement of a bulk write cannot carry is set.
  bool has_command_settings() const noexcept { return !concerns.empty() || comment || max_time; }
};

struct FindSpec : CommonSpec {
  FindSpec();
  FindSpec(const FindSpec&);
  FindSpec(FindSpec&&) noexcept;
  FindSpec& operator=(const FindSpec&);
  FindSpec& operator=(FindSpec&&) noexcept;
  ~FindSpec();

  Document sort;        // `{}`: no sort
  Document projection;  // `{}`: every field
  std::optional<std::int64_t> skip;
  std::optional<std::int64_t> limit;
  std::optional<std::int32_t> batch_size;
};

/// How many documents a negative find limit asks for: one batch of `-limit` (drivers' CRUD
/// specification). INT64_MIN has no positive twin and stands for "all of them". Both the
/// find command and the server-side join read a negative limit through this.
constexpr std::int64_t one_batch_limit(std::int64_t negative_limit) noexcept {
  return negative_limit == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max()
                                                                    : -negative_limit;
}

struct CountSpec : CommonSpec {
  CountSpec();
  CountSpec(const CountSpec&);
  CountSpec(CountSpec&&) noexcept;
  CountSpec& operator=(const CountSpec&);
  CountSpec& operator=(CountSpec&&) noexcept;
  ~CountSpec();

  std::optional<std::int64_t> skip;
  std::optional<std::int64_t> limit;
};

struct AggregateSpec : CommonSpec {
  AggregateSpec();
  AggregateSpec(const AggregateSpec&);
  AggregateSpec(AggregateSpec&&) noexcept;
  AggregateSpec& operator=(const AggregateSpec&);
  AggregateSpec& operator=(AggregateSpec&&) noexcept;
  ~AggregateSpec();

  std::optional<std::int32_t> batch_size;
  std::optional<bool> allow_disk_use;
};

/// update_one/update_many/replace_one (array_filters stay empty for a replacement).
struct UpdateSpec : CommonSpec {
  UpdateSpec();
  UpdateSpec(const UpdateSpec&);
  UpdateSpec(UpdateSpec&&) noexcept;
  UpdateSpec& operator=(const UpdateSpec&);
  UpdateSpec& operator=(UpdateSpec&&) noexcept;
  ~UpdateSpec();

  bool upsert = false;
  bool keep_version = false;  // the version member is not moved (odm/driver/versioning.hpp)
  bool keep_timestamps = false;  // updated_at and created_at are not set (odm/driver/timestamps.hpp)
  std::vector<Document> array_filters;
};

struct DeleteSpec : CommonSpec {
  DeleteSpec();
  DeleteSpec(const DeleteSpec&);
  DeleteSpec(DeleteSpec&&) noexcept;
  DeleteSpec& operator=(const DeleteSpec&);
  DeleteSpec& operator=(DeleteSpec&&) noexcept;
  ~DeleteSpec();
};

struct InsertSpec : CommonSpec {
  InsertSpec();
  InsertSpec(const InsertSpec&);
  InsertSpec(InsertSpec&&) noexcept;
  InsertSpec& operator=(const InsertSpec&);
  InsertSpec& operator=(InsertSpec&&) noexcept;
  ~InsertSpec();

  bool ordered = true;
};

struct FindAndModifySpec : CommonSpec {
  FindAndModifySpec();
  FindAndModifySpec(const FindAndModifySpec&);
  FindAndModifySpec(FindAndModifySpec&&) noexcept;
  FindAndModifySpec& operator=(const FindAndModifySpec&);
  FindAndModifySpec& operator=(FindAndModifySpec&&) noexcept;
  ~FindAndModifySpec();

  ReturnDocument image = ReturnDocument::before;
  bool upsert = false;
  bool keep_version = false;  // the version member is not moved (odm/driver/versioning.hpp)
  bool keep_timestamps = false;  // updated_at and created_at are not set (odm/driver/timestamps.hpp)
  Document sort;
  Document projection;
  std::vector<Document> array_filters;
};

/// `count`, refused when negative (MongoDB refuses a negative skip or batchSize).
/// Refuses a maxTimeMS MongoDB would refuse (negative, or above a 32-bit count).
void check_max_time(std::chrono::milliseconds limit);
/// `{hint: "<index_name>"}`, the name checked.
Document hint_by_name(const std::string& index_name);

template <class Number>
Number not_negative(Number count, const char* what) {
  if (count < 0) throw ConfigurationError(std::string(what) + " must not be negative, not " + std::to_string(count));
  return count;
}

/// The driver's way to read an options object's settings.
struct OptionsAccess {
  template <class Options>
  static const auto& spec(const Options& options) noexcept {
    return options.spec_;
  }
  template <class Options>
  static auto& mutable_spec(Options& options) noexcept {
    return options.spec_;
  }
};

/// What a command takes besides a comment (which every command takes).
enum Takes : unsigned {
  takes_max_time = 1U << 0U,
  takes_read_settings = 1U << 1U,  // read preference and read concern
  takes_write_concern = 1U << 2U,
  takes_hint = 1U << 3U,
  takes_collation = 1U << 4U,
};

}  // namespace detail

/// The base of every operation's options: `Derived` is the operation's options class (so
/// the setters chain), T the collection's model, `Spec` what it holds, `takes` which of
/// the shared settings its command accepts (the others do not compile).
template <class Derived, class T, class Spec, unsigned takes>
class OperationOptions {
 public:
  /// A comment the server records with the command (logs, profiler, currentOp).
  Derived& comment(std::string text) {
    detail::check_option_text(text, "the comment");
    spec_.comment = std::move(text);
    return self();
  }
  /// maxTimeMS: the server stops the command once it has run this long, and the call
  /// throws odm::ServerError (code 50, MaxTimeMSExpired). Must not be negative.
  Derived& max_time(std::chrono::milliseconds limit)
    requires((takes & detail::takes_max_time) != 0)
  {
    detail::check_max_time(limit);
    spec_.max_time = limit;
    return self();
  }
  /// Where the read may go; overrides the collection's, database's and client's.
  Derived& read_preference(ReadPreference preference)
    requires((takes & detail::takes_read_settings) != 0)
  {
    spec_.concerns.read_preference = std::move(preference);
    return self();
  }
  /// What the read may see; overrides the levels above. Not allowed inside a
  /// transaction (the transaction's own applies): the operation throws ConfigurationError.
  Derived& read_concern(ReadConcern concern)
    requires((takes & detail::takes_read_settings) != 0)
  {
    spec_.concerns.read_concern = concern;
    return self();
  }
  /// What the write waits for; overrides the levels above. Not allowed inside a
  /// transaction (the transaction's own applies): the operation throws ConfigurationError.
  Derived& write_concern(WriteConcern concern)
    requires((takes & detail::takes_write_concern) != 0)
  {
    spec_.concerns.write_concern = std::move(concern);
    return self();
  }
  /// The index to use, by name. The server refuses a hint naming no index.
  Derived& hint(std::string index_name)
    requires((takes & detail::takes_hint) != 0)
  {
    spec_.hint = detail::hint_by_name(index_name);
    return self();
  }
  /// The index to use, by its keys: odm::sort(odm::asc(&T::member), ...) over T's members.
  Derived& hint(const Sort<T>& keys)
    requires((takes & detail::takes_hint) != 0)
  {
    spec_.hint = Document();
    detail::check_append(bson_append_document(spec_.hint.get_mutable(), "hint", 4, keys.bson().get()));
    return self();
  }
  template <class Other>
    requires((takes & detail::takes_hint) != 0)
  Derived& hint(const Sort<Other>&) {
    static_assert(std::is_same_v<Other, T>,
                  "odm: this hint's keys are over another model than the collection's; build them from the "
                  "collection's members, odm::sort(odm::asc(&Model::member))");
    return self();
  }
  /// How strings compare in the filter (and sort).
  Derived& collation(Collation value)
    requires((takes & detail::takes_collation) != 0)
  {
    spec_.collation = std::move(value);
    return self();
  }

 protected:
  friend struct detail::OptionsAccess;
  Derived& self() noexcept { return static_cast<Derived&>(*this); }

  template <class Other>
  static void refuse_sort() {
    static_assert(std::is_same_v<Other, T>,
                  "odm: this sort is over another model than the collection's; build it from the collection's "
                  "members, odm::sort(odm::asc(&Model::member))");
  }
  template <class Other>
  static void refuse_projection() {
    static_assert(std::is_same_v<Other, T>,
                  "odm: this projection is of another model than the collection's; build it as "
                  "odm::projection<Model, Result>()");
  }

  Spec spec_;
};

namespace detail {
/// Whether a document projected onto Result's fields decodes as Model: every member of
/// Model that Result does not name may be absent (find_one_and_* return a Model).
template <class Model, class Result>
consteval bool projection_reads_as_model() {
  if constexpr (std::is_same_v<Model, Result>) {
    return true;
  } else {
    bool reads = true;
    members<Model>::for_each([&](auto member) {
      using Member = decltype(member);
      bool named = false;
      members<Result>::for_each([&](auto kept) { named = named || decltype(kept)::name == Member::name; });
      if (!named && Member::when_absent == Absent::refused) reads = false;
    });
    return reads;
  }
}

/// What a document returned under a projection onto Result's fields decodes as: the
/// model when the projection keeps all it requires, else Result itself.
template <class Model, class Result>
struct projected_read {
  using type = std::conditional_t<projection_reads_as_model<Model, Result>(), Model, Result>;
};
template <class Model>
struct projected_read<Model, Document> {
  using type = Document;
};
}  // namespace detail

/// find() and find_one() on a collection of T. `Reads` is what a document returned under
/// the options decodes as: T, or the result type of a projection that leaves out members
/// T requires (find<Reads>() and find<odm::Document>() then read them; find() does not
/// compile, where it would throw DecodeError on every document).
template <class T, class Reads = T>
class FindOptions
    : public OperationOptions<FindOptions<T, Reads>, T, detail::FindSpec,
                              detail::takes_max_time | detail::takes_read_settings | detail::takes_hint |
                                  detail::takes_collation> {
 public:
  /// The order of the results: odm::sort(odm::desc(&T::member), ...), over T's members.
  FindOptions& sort(const Sort<T>& sort) {
    this->spec_.sort = sort.bson();
    return *this;
  }
  template <class Other>
  FindOptions& sort(const Sort<Other>&) {
    this->template refuse_sort<Other>();
    return *this;
  }
  /// These options with the fields to return: odm::projection<T, Summary>(), which makes
  /// options whose documents read as Summary (unless Summary keeps every member T
  /// requires): pass them to find<Summary>(). Collection<T>::find<Summary>() sets the
  /// projection from Summary's fields when it is not set.
  /// A projection that leaves what the documents read as unchanged (a raw one, or one onto
  /// a struct that keeps every member T requires) sets it in place, as the other setters do.
  template <class Result>
    requires std::is_same_v<typename detail::projected_read<T, Result>::type, Reads>
  FindOptions& projection(const Projection<T, Result>& projection) {
    this->spec_.projection = projection.bson();
    return *this;
  }
  template <class Result>
  [[nodiscard]] FindOptions<T, typename detail::projected_read<T, Result>::type> projection(
      const Projection<T, Result>& projection) const {
    FindOptions<T, typename detail::projected_read<T, Result>::type> typed;
    auto& spec = detail::OptionsAccess::mutable_spec(typed);
    spec = this->spec_;
    spec.projection = projection.bson();
    return typed;
  }
  template <class Other, class Result>
  FindOptions projection(const Projection<Other, Result>&) const {
    this->template refuse_projection<Other>();
    return *this;
  }
  /// Documents to skip; not negative (MongoDB refuses a negative skip).
  FindOptions& skip(std::int64_t count) {
    this->spec_.skip = detail::not_negative(count, "FindOptions::skip");
    return *this;
  }
  /// The most documents to return; 0 is no limit, and a negative limit asks for one
  /// batch of at most that many (drivers' CRUD specification).
  FindOptions& limit(std::int64_t count) {
    this->spec_.limit = count;
    return *this;
  }
  /// Documents per batch (the first reply and each getMore). Server default: 101 first;
  /// 0 is the default, negative is refused.
  FindOptions& batch_size(std::int32_t count) {
    this->spec_.batch_size = detail::not_negative(count, "FindOptions::batch_size");
    return *this;
  }

  /// `{}` when unset.
  const Document& projection() const noexcept { return this->spec_.projection; }
};

/// count() (an aggregation counting the matches).
template <class T>
class CountOptions
    : public OperationOptions<CountOptions<T>, T, detail::CountSpec,
                              detail::takes_max_time | detail::takes_read_settings | detail::takes_hint |
                                  detail::takes_collation> {
 public:
  /// Matches to skip before counting; not negative.
  CountOptions& skip(std::int64_t count) {
    this->spec_.skip = detail::not_negative(count, "CountOptions::skip");
    return *this;
  }
  /// Count at most this many; at least 1 (the count runs `$limit`, which takes a positive
  /// number; leave it unset for no limit).
  CountOptions& limit(std::int64_t count) {
    if (count < 1)
      throw ConfigurationError("CountOptions::limit must be at least 1 (leave it unset for no limit), not " +
                               std::to_string(count));
    this->spec_.limit = count;
    return *this;
  }
};

/// aggregate(). (The write concern matters to a pipeline ending in $out or $merge.)
template <class T>
class AggregateOptions
    : public OperationOptions<AggregateOptions<T>, T, detail::AggregateSpec,
                              detail::takes_max_time | detail::takes_read_settings | detail::takes_write_concern |
                                  detail::takes_hint | detail::takes_collation> {
 public:
  /// Documents per batch of the result cursor (the first reply and each getMore).
  AggregateOptions& batch_size(std::int32_t count) {
    this->spec_.batch_size = detail::not_negative(count, "AggregateOptions::batch_size");
    return *this;
  }
  /// Let stages that exceed their memory limit write temporary files.
  AggregateOptions& allow_disk_use(bool value = true) {
    this->spec_.allow_disk_use = value;
    return *this;
  }
};

// libmongoc 1.23 puts the extra options of update and replace into each update statement
// (where the server refuses maxTimeMS) and refuses them on bulk writes, so update_one,
// update_many, replace_one, insert_many and bulk writes offer no max_time.

/// update_one() and update_many(), and their bulk-write forms (where only upsert,
/// array_filters, hint and collation apply: the rest belongs to BulkWriteOptions).
template <class T>
class UpdateOptions
    : public OperationOptions<UpdateOptions<T>, T, detail::UpdateSpec,
                              detail::takes_write_concern | detail::takes_hint | detail::takes_collation> {
 public:
  /// Insert a document when none matches.
  UpdateOptions& upsert(bool value = true) {
    this->spec_.upsert = value;
    return *this;
  }
  /// For a model with a version member (odm::version): send the write as given, without
  /// moving the version by one (every write moves it otherwise: odm/driver/versioning.hpp).
  /// An odm::Tracked object loaded before such a write does not see it.
  UpdateOptions& keep_version(bool value = true) {
    this->spec_.keep_version = value;
    return *this;
  }
  /// For a model with timestamps (odm::created_at, odm::updated_at): leave them as the
  /// write says (a data fix that is no change of the document's content, say).
  UpdateOptions& keep_timestamps(bool value = true) {
    this->spec_.keep_timestamps = value;
    return *this;
  }
  /// The filters of the `$[<identifier>]` positional operators the update uses, e.g.
  /// `{"c.by": "joe"}` for `{$set: {"checkout.$[c].date": ...}}`.
  UpdateOptions& array_filters(std::vector<Document> filters) {
    this->spec_.array_filters = std::move(filters);
    return *this;
  }
};

/// replace_one() and its bulk-write form: a replacement has no array filters.
template <class T>
class ReplaceOptions
    : public OperationOptions<ReplaceOptions<T>, T, detail::UpdateSpec,
                              detail::takes_write_concern | detail::takes_hint | detail::takes_collation> {
 public:
  /// Insert the replacement when no document matches.
  ReplaceOptions& upsert(bool value = true) {
    this->spec_.upsert = value;
    return *this;
  }
  /// For a model with a version member (odm::version): send the write as given, without
  /// moving the version by one (every write moves it otherwise: odm/driver/versioning.hpp).
  /// An odm::Tracked object loaded before such a write does not see it.
  ReplaceOptions& keep_version(bool value = true) {
    this->spec_.keep_version = value;
    return *this;
  }
  /// For a model with timestamps (odm::created_at, odm::updated_at): leave them as the
  /// write says (a data fix that is no change of the document's content, say).
  ReplaceOptions& keep_timestamps(bool value = true) {
    this->spec_.keep_timestamps = value;
    return *this;
  }
};

/// delete_one() and delete_many().
template <class T>
class DeleteOptions
    : public OperationOptions<DeleteOptions<T>, T, detail::DeleteSpec,
                              detail::takes_max_time | detail::takes_write_concern | detail::takes_hint |
                                  detail::takes_collation> {};

/// insert_one().
template <class T>
class InsertOneOptions
    : public OperationOptions<InsertOneOptions<T>, T, detail::InsertSpec,
                              detail::takes_max_time | detail::takes_write_concern> {};

/// insert_many() and bulk_write(): stop at the first error (ordered, the default) or
/// attempt every write. Sent as `ordered` in every write command either way: libmongoc
/// writes it there itself.
template <class T>
class InsertManyOptions
    : public OperationOptions<InsertManyOptions<T>, T, detail::InsertSpec, detail::takes_write_concern> {
 public:
  InsertManyOptions& ordered(bool value) {
    this->spec_.ordered = value;
    return *this;
  }
};
template <class T>
class BulkWriteOptions
    : public OperationOptions<BulkWriteOptions<T>, T, detail::InsertSpec, detail::takes_write_concern> {
 public:
  BulkWriteOptions& ordered(bool value) {
    this->spec_.ordered = value;
    return *this;
  }
};


/// What find_one_and_update/_replace/_delete share: which document when several match,
/// and the fields to return.
template <class Derived, class T>
class FindAndModifyOptions
    : public OperationOptions<Derived, T, detail::FindAndModifySpec,
                              detail::takes_max_time | detail::takes_write_concern | detail::takes_hint |
                                  detail::takes_collation> {
 public:
  /// Which document to modify when several match.
  Derived& sort(const Sort<T>& sort) {
    this->spec_.sort = sort.bson();
    return this->self();
  }
  template <class Other>
  Derived& sort(const Sort<Other>&) {
    this->template refuse_sort<Other>();
    return this->self();
  }
  /// The fields of the returned document, which is read as a T: odm::projection<T, Result>()
  /// where Result names every member of T that cannot be absent, or raw.
  template <class Result>
  Derived& projection(const Projection<T, Result>& projection) {
    static_assert(detail::projection_reads_as_model<T, Result>(),
                  "odm: find_one_and_update/_replace/_delete return the collection's model, but this projection "
                  "leaves out a member the model requires (the write would be applied, then the returned document "
                  "refused); keep every required member (the id too) in the projection struct, or make the others "
                  "std::optional or odm::defaulted");
    this->spec_.projection = projection.bson();
    return this->self();
  }
  template <class Other, class Result>
  Derived& projection(const Projection<Other, Result>&) {
    this->template refuse_projection<Other>();
    return this->self();
  }
};

/// find_one_and_update().
template <class T>
class FindOneAndUpdateOptions : public FindAndModifyOptions<FindOneAndUpdateOptions<T>, T> {
 public:
  FindOneAndUpdateOptions& return_document(ReturnDocument which) {
    this->spec_.image = which;
    return *this;
  }
  FindOneAndUpdateOptions& upsert(bool value = true) {
    this->spec_.upsert = value;
    return *this;
  }
  /// For a model with a version member (odm::version): send the write as given, without
  /// moving the version by one (every write moves it otherwise: odm/driver/versioning.hpp).
  /// An odm::Tracked object loaded before such a write does not see it.
  FindOneAndUpdateOptions& keep_version(bool value = true) {
    this->spec_.keep_version = value;
    return *this;
  }
  /// For a model with timestamps (odm::created_at, odm::updated_at): leave them as the
  /// write says (a data fix that is no change of the document's content, say).
  FindOneAndUpdateOptions& keep_timestamps(bool value = true) {
    this->spec_.keep_timestamps = value;
    return *this;
  }
  /// As UpdateOptions::array_filters.
  FindOneAndUpdateOptions& array_filters(std::vector<Document> filters) {
    this->spec_.array_filters = std::move(filters);
    return *this;
  }
};

/// find_one_and_replace().
template <class T>
class FindOneAndReplaceOptions : public FindAndModifyOptions<FindOneAndReplaceOptions<T>, T> {
 public:
  FindOneAndReplaceOptions& return_document(ReturnDocument which) {
    this->spec_.image = which;
    return *this;
  }
  FindOneAndReplaceOptions& upsert(bool value = true) {
    this->spec_.upsert = value;
    return *this;
  }
  /// For a model with a version member (odm::version): send the write as given, without
  /// moving the version by one (every write moves it otherwise: odm/driver/versioning.hpp).
  /// An odm::Tracked object loaded before such a write does not see it.
  FindOneAndReplaceOptions& keep_version(bool value = true) {
    this->spec_.keep_version = value;
    return *this;
  }
  /// For a model with timestamps (odm::created_at, odm::updated_at): leave them as the
  /// write says (a data fix that is no change of the document's content, say).
  FindOneAndReplaceOptions& keep_timestamps(bool value = true) {
    this->spec_.keep_timestamps = value;
    return *this;
  }
};

/// find_one_and_delete(): it returns the deleted document; nothing to upsert.
template <class T>
class FindOneAndDeleteOptions : public FindAndModifyOptions<FindOneAndDeleteOptions<T>, T> {};

}  // namespace odm
