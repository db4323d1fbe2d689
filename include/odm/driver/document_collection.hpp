#pragma once
// odm::DocumentCollection: a collection read and written as raw documents, for code that
// has no model of what is stored (an admin tool, a service reading a collection another
// team owns, a copy between clusters):
//
//   odm::DocumentCollection events = db.collection<odm::Document>("events");
//   for (const odm::Document& event : events.find(odm::Document::from_json(R"({"kind": "login"})")))
//     ...
//
// Filters, updates, sorts and projections are documents written by hand (typed ones need a
// model's members); what the server returns is handed over as stored, never decoded. The
// options are the typed collections' own classes over odm::Document (FindOptions<Document>,
// with odm::Sort<Document>::raw and odm::Projection<Document>::raw). Nothing of a model
// applies: no version is moved, no schema version is checked or written, no `_id` is
// generated except the ObjectId libmongoc puts first in a document inserted without one.
// Errors are the typed collections' (ServerError, DuplicateKeyError, PartialWrite, ...).

#include <odm/bson/document.hpp>
#include <odm/driver/core.hpp>
#include <odm/driver/cursor.hpp>
#include <odm/driver/options.hpp>
#include <odm/driver/results.hpp>
#include <odm/driver/session.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace odm {

class Database;

/// A collection of documents of no model. Cheap to copy; may be shared between threads
/// (its setters, like any object's, must not race with its use). Ids are `{_id: value}`
/// documents: whatever type the stored `_id` has.
class DocumentCollection {
 public:
  // Copied, moved and destroyed in the library (odm/driver/document_collection.cpp).
  DocumentCollection(const DocumentCollection&);
  DocumentCollection(DocumentCollection&&) noexcept;
  DocumentCollection& operator=(const DocumentCollection&);
  DocumentCollection& operator=(DocumentCollection&&) noexcept;
  ~DocumentCollection();

  const std::string& name() const noexcept { return core_.name(); }
  const std::string& database_name() const noexcept { return core_.database_name(); }

  /// This handle's read preference, read concern and write concern, over its database's.
  DocumentCollection& read_preference(ReadPreference preference);
  DocumentCollection& read_concern(ReadConcern concern);
  DocumentCollection& write_concern(WriteConcern concern);
  const std::optional<ReadPreference>& read_preference() const noexcept { return core_.concerns().read_preference; }
  const std::optional<ReadConcern>& read_concern() const noexcept { return core_.concerns().read_concern; }
  const std::optional<WriteConcern>& write_concern() const noexcept { return core_.concerns().write_concern; }

  // ---- insert ---------------------------------------------------------------------

  /// Inserts `document`; one without `_id` gets a new ObjectId, put first. Returns `{_id: value}`.
  InsertOneResult<Document> insert_one(const Document& document, const InsertOneOptions<Document>& options = {});
  InsertOneResult<Document> insert_one(Session& session, const Document& document,
                                       const InsertOneOptions<Document>& options = {});
  /// Inserts `documents` in as few commands as the server takes. A failed write throws
  /// PartialWrite<Document> saying which were written.
  InsertManyResult<Document> insert_many(const std::vector<Document>& documents,
                                         const InsertManyOptions<Document>& options = {});
  InsertManyResult<Document> insert_many(Session& session, const std::vector<Document>& documents,
                                         const InsertManyOptions<Document>& options = {});

  // ---- read -----------------------------------------------------------------------

  /// The documents matching `filter` (`{}`: all), as stored.
  Cursor<Document> find(const Document& filter = {}, const FindOptions<Document>& options = {}) const;
  Cursor<Document> find(Session& session, const Document& filter = {},
                        const FindOptions<Document>& options = {}) const;
  std::optional<Document> find_one(const Document& filter = {}, const FindOptions<Document>& options = {}) const;
  std::optional<Document> find_one(Session& session, const Document& filter = {},
                                   const FindOptions<Document>& options = {}) const;
  /// How many documents match `filter` (an aggregation, as countDocuments).
  std::int64_t count(const Document& filter = {}, const CountOptions<Document>& options = {}) const;
  std::int64_t count(Session& session, const Document& filter = {}, const CountOptions<Document>& options = {}) const;
  /// Runs a pipeline of raw stages; each result as the server returns it.
  Cursor<Document> aggregate(const std::vector<Document>& stages, const AggregateOptions<Document>& options = {}) const;
  Cursor<Document> aggregate(Session& session, const std::vector<Document>& stages,
                             const AggregateOptions<Document>& options = {}) const;

  // ---- update and delete ------------------------------------------------------------

  /// `update` is made of update operators (`{"$set": {...}}`); an empty one, or one with a
  /// field that is not an operator, is refused before anything is sent (odm::ValueError
  /// naming the field), as typed raw updates are: MongoDB would read it as a replacement.
  UpdateResult<Document> update_one(const Document& filter, const Document& update,
                                    const UpdateOptions<Document>& options = {});
  UpdateResult<Document> update_one(Session& session, const Document& filter, const Document& update,
                                    const UpdateOptions<Document>& options = {});
  UpdateResult<Document> update_many(const Document& filter, const Document& update,
                                     const UpdateOptions<Document>& options = {});
  UpdateResult<Document> update_many(Session& session, const Document& filter, const Document& update,
                                     const UpdateOptions<Document>& options = {});
  /// Replaces the first match with `replacement` whole (a field it does not hold is gone;
  /// a stored `_id` stays). A replacement holding an update operator is refused (ValueError).
  UpdateResult<Document> replace_one(const Document& filter, const Document& replacement,
                                     const ReplaceOptions<Document>& options = {});
  UpdateResult<Document> replace_one(Session& session, const Document& filter, const Document& replacement,
                                     const ReplaceOptions<Document>& options = {});
  DeleteResult delete_one(const Document& filter, const DeleteOptions<Document>& options = {});
  DeleteResult delete_one(Session& session, const Document& filter, const DeleteOptions<Document>& options = {});
  DeleteResult delete_many(const Document& filter, const DeleteOptions<Document>& options = {});
  DeleteResult delete_many(Session& session, const Document& filter, const DeleteOptions<Document>& options = {});

  /// Modify the first match and return it (before, by default, or after); std::nullopt
  /// when nothing matched.
  std::optional<Document> find_one_and_update(const Document& filter, const Document& update,
                                              const FindOneAndUpdateOptions<Document>& options = {});
  std::optional<Document> find_one_and_update(Session& session, const Document& filter, const Document& update,
                                              const FindOneAndUpdateOptions<Document>& options = {});
  std::optional<Document> find_one_and_replace(const Document& filter, const Document& replacement,
                                               const FindOneAndReplaceOptions<Document>& options = {});
  std::optional<Document> find_one_and_replace(Session& session, const Document& filter, const Document& replacement,
                                               const FindOneAndReplaceOptions<Document>& options = {});
  std::optional<Document> find_one_and_delete(const Document& filter,
                                              const FindOneAndDeleteOptions<Document>& options = {});
  std::optional<Document> find_one_and_delete(Session& session, const Document& filter,
                                              const FindOneAndDeleteOptions<Document>& options = {});

  /// Drops the collection (and its indexes). Dropping a missing collection is not an error.
  void drop() const;

 private:
  friend class Database;
  friend struct detail::Access;
  explicit DocumentCollection(detail::CollectionCore core);
  const detail::CollectionCore& core() const noexcept { return core_; }

  InsertOneResult<Document> insert_one_in(detail::SessionState* session, const Document& document,
                                          const detail::InsertSpec& options);
  InsertManyResult<Document> insert_many_in(detail::SessionState* session, const std::vector<Document>& documents,
                                            const detail::InsertSpec& options);
  UpdateResult<Document> update_in(detail::SessionState* session, detail::UpdateKind kind, const Document& filter,
                                   const Document& update, const detail::UpdateSpec& options);
  std::optional<Document> modify_in(detail::SessionState* session, const Document& filter, const Document* update,
                                    const detail::FindAndModifySpec& options);

  detail::CollectionCore core_;
};

}  // namespace odm
