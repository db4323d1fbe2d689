#pragma once
// What the writes of a Collection<T> report: the results of insert, update, delete and
// bulk writes, and odm::PartialWrite<T>, what a failed insert_many() or bulk_write() wrote
// before it stopped.

#include <odm/bson/document.hpp>
#include <odm/driver/errors.hpp>
#include <odm/driver/write_counts.hpp>
#include <odm/error.hpp>
#include <odm/fields/object_id.hpp>
#include <odm/model/id.hpp>
#include <odm/model/model.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace odm {

namespace detail {

/// The id type of a collection of T: T's id member, or ObjectId when T has none (the
/// server-side default _id, which odm generates on insert).
template <class T>
struct collection_id {
  using type = ObjectId;
};
template <has_id T>
struct collection_id<T> {
  using type = std::remove_cvref_t<id_type_t<T>>;
};
/// A DocumentCollection's ids: `{_id: value}`, whatever the value's type.
template <>
struct collection_id<Document> {
  using type = Document;
};

}  // namespace detail

template <class Id>
struct InsertOneResult {
  Id inserted_id;
};

template <class Id>
struct InsertManyResult {
  std::int64_t inserted = 0;
  std::vector<Id> inserted_ids;  // in the order of the input
};

template <class Id>
struct UpdateResult {
  std::int64_t matched = 0;
  std::int64_t modified = 0;
  std::optional<Id> upserted_id;  // set when the update inserted a document
};

struct DeleteResult {
  std::int64_t deleted = 0;
};

/// The counts (inserted, matched, modified, deleted, upserted) and the ids.
template <class Id>
struct BulkWriteResult : WriteCounts {
  /// The _id of each inserted document, in the order of the writes (for a model without
  /// an id member, the ObjectId odm generated).
  std::vector<Id> inserted_ids;
  /// For each upsert: the position of its write in the bulk write and the new id.
  std::vector<std::pair<std::size_t, Id>> upserted_ids;
};

namespace detail {

/// Everything a PartialWrite<T> reports.
template <class Id>
struct WrittenSoFar {
  BulkWriteResult<Id> result;
  std::vector<WriteFailure> write_errors;
  std::vector<WriteStatus> statuses;
  std::vector<std::optional<Id>> ids;
};

template <class T, class Base>
class PartialWriteOf;

}  // namespace detail

/// What a failed insert_many() or bulk_write() of a Collection<T> wrote. Every odm::Error
/// these throw (a value that cannot be encoded aside: then nothing was sent) is both the
/// error that stopped them (DuplicateKeyError, WriteError, ConnectionError, PoolExhausted,
/// ...) and a PartialWrite<T>, so either can be caught:
///
///   try {
///     books.insert_many(batch);
///   } catch (const odm::PartialWrite<Book>& partial) {
///     partial.result().inserted_ids;   // what is stored, in input order
///     partial.write_errors();          // index, code and message of each refused write
///     partial.positions(odm::WriteStatus::unconfirmed);  // may or may not be stored
///   }
///
/// Every write is accounted for by its status: applied, refused, unconfirmed (sent on a
/// connection that failed before the reply, or answered by a reply whose counts contradict
/// its write errors: then the error is a ProtocolError and the counts leave that command
/// out) or not attempted.
template <class T>
class PartialWrite {
 public:
  using id_type = typename detail::collection_id<T>::type;

  PartialWrite(const PartialWrite&) = default;
  virtual ~PartialWrite() = default;

  /// What the server acknowledged: the counts, the ids of the inserted documents in input
  /// order, the ids of the upserts.
  const BulkWriteResult<id_type>& result() const noexcept { return written_.result; }
  /// Each write the server refused, in input order.
  const std::vector<WriteFailure>& write_errors() const noexcept { return written_.write_errors; }
  /// What became of each write, by its position (the input range's, or the bulk write's).
  const std::vector<WriteStatus>& statuses() const noexcept { return written_.statuses; }
  /// The positions of the writes with this status, in increasing order.
  std::vector<std::size_t> positions(WriteStatus status) const {
    std::vector<std::size_t> found;
    for (std::size_t i = 0; i < written_.statuses.size(); ++i)
      if (written_.statuses[i] == status) found.push_back(i);
    return found;
  }
  /// The _id the document of the insert at `position` carried, whatever became of it (odm
  /// generates one for a model without an id member); nullopt for an update or a delete.
  const std::optional<id_type>& id(std::size_t position) const {
    return written_.ids[detail::checked_position("PartialWrite::id", position, written_.ids.size())];
  }

  /// The exception as the odm::Error it also is.
  const Error& error() const noexcept { return *dynamic_cast<const Error*>(this); }
  const char* what() const noexcept { return error().what(); }

 private:
  template <class, class>
  friend class detail::PartialWriteOf;
  explicit PartialWrite(detail::WrittenSoFar<id_type> written) : written_(std::move(written)) {}

  detail::WrittenSoFar<id_type> written_;
};

namespace detail {

/// The exception insert_many()/bulk_write() throw: the error that stopped them, and what
/// they wrote.
template <class T, class Base>
class PartialWriteOf final : public Base, public PartialWrite<T> {
 public:
  PartialWriteOf(const Base& error, WrittenSoFar<typename PartialWrite<T>::id_type> written)
      : Base(error), PartialWrite<T>(std::move(written)) {}
  const char* what() const noexcept override { return Base::what(); }
};

/// Throws `error` as PartialWriteOf<T, E> for the first E of `Es` it is (so list the most
/// derived first; odm::Error last catches the rest).
template <class T, class... Es>
[[noreturn]] void throw_partial_as(const Error& error, WrittenSoFar<typename PartialWrite<T>::id_type>& written) {
  const auto throw_if = [&]<class E>(const E* typed) {
    if (typed != nullptr) throw PartialWriteOf<T, E>(*typed, std::move(written));
    return false;
  };
  (void)(throw_if(dynamic_cast<const Es*>(&error)) || ...);
  throw PartialWriteOf<T, Error>(error, std::move(written));
}

/// Throws `error` (the exception_ptr of an odm::Error) as the most derived of the classes
/// a caller of a write can act on, and a PartialWrite<T>.
template <class T>
[[noreturn]] void throw_partial(const std::exception_ptr& error, WrittenSoFar<typename PartialWrite<T>::id_type> written) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    throw_partial_as<T, DecodeAfterWriteError, DuplicateKeyError, WriteError, ServerError, ProtocolError, PoolExhausted,
                     ConnectionError, DriverError>(e, written);
  }
}

}  // namespace detail

}  // namespace odm
