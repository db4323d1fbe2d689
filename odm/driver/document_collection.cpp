// odm::DocumentCollection: every operation is CollectionCore's, with the documents passed
// through as they are (no model to encode or decode).
#include "special_members.hpp"

#include <odm/driver/collection.hpp>
#include <odm/driver/document_collection.hpp>

#include <cstddef>
#include <exception>
#include <string>
#include <optional>
#include <utility>
#include <vector>

namespace odm {

namespace {

template <class Options>
const auto& spec(const Options& options) noexcept {
  return detail::OptionsAccess::spec(options);
}

detail::SessionState* state(Session& session) { return detail::Access::session_state(session); }

/// A replacement holds no update operator: one with them would be an update to findAndModify.
void check_replacement(const Document& replacement) {
  bson_iter_t it;
  if (bson_iter_init(&it, replacement.get()))
    while (bson_iter_next(&it))
      if (bson_iter_key(&it)[0] == '$')
        throw ValueError(std::string("the replacement's `") + bson_iter_key(&it) +
                         "` is an update operator: MongoDB would apply the document as an update (update a document "
                         "with update_one)");
}

}  // namespace

ODM_DEFINE_SPECIAL_MEMBERS(DocumentCollection);

DocumentCollection::DocumentCollection(detail::CollectionCore core) : core_(std::move(core)) {}

DocumentCollection& DocumentCollection::read_preference(ReadPreference preference) {
  core_.set_concerns(detail::Concerns{std::move(preference), std::nullopt, std::nullopt});
  return *this;
}
DocumentCollection& DocumentCollection::read_concern(ReadConcern concern) {
  core_.set_concerns(detail::Concerns{std::nullopt, concern, std::nullopt});
  return *this;
}
DocumentCollection& DocumentCollection::write_concern(WriteConcern concern) {
  core_.set_concerns(detail::Concerns{std::nullopt, std::nullopt, std::move(concern)});
  return *this;
}

// ---- insert -------------------------------------------------------------------------

InsertOneResult<Document> DocumentCollection::insert_one_in(detail::SessionState* session, const Document& document,
                                                            const detail::InsertSpec& options) {
  return {core_.insert_one(session, document, options)};
}
InsertOneResult<Document> DocumentCollection::insert_one(const Document& document,
                                                         const InsertOneOptions<Document>& options) {
  return insert_one_in(nullptr, document, spec(options));
}
InsertOneResult<Document> DocumentCollection::insert_one(Session& session, const Document& document,
                                                         const InsertOneOptions<Document>& options) {
  return insert_one_in(state(session), document, spec(options));
}

InsertManyResult<Document> DocumentCollection::insert_many_in(detail::SessionState* session,
                                                              const std::vector<Document>& documents,
                                                              const detail::InsertSpec& options) {
  if (documents.empty()) return {};
  std::vector<detail::BulkOperation> operations;
  operations.reserve(documents.size());
  for (const Document& document : documents)
    operations.push_back(detail::BulkOperation{detail::BulkOperation::Kind::insert_one, document, {}, {}});
  detail::BulkOutcome outcome = core_.bulk_write(session, std::move(operations), options, "insert into ");
  // The ids come back as `{_id: value}`, which is what this collection's ids are.
  detail::WrittenSoFar<Document> written;
  static_cast<WriteCounts&>(written.result) = outcome.counts;
  written.ids.resize(outcome.insert_ids.size());
  for (std::size_t i = 0; i < outcome.insert_ids.size(); ++i) {
    if (outcome.insert_ids[i].empty()) continue;
    written.ids[i] = outcome.insert_ids[i];
    if (outcome.statuses[i] == WriteStatus::applied) written.result.inserted_ids.push_back(outcome.insert_ids[i]);
  }
  if (outcome.error) {
    written.write_errors = std::move(outcome.write_errors);
    written.statuses = std::move(outcome.statuses);
    detail::throw_partial<Document>(outcome.error, std::move(written));
  }
  return {written.result.inserted, std::move(written.result.inserted_ids)};
}
InsertManyResult<Document> DocumentCollection::insert_many(const std::vector<Document>& documents,
                                                           const InsertManyOptions<Document>& options) {
  return insert_many_in(nullptr, documents, spec(options));
}
InsertManyResult<Document> DocumentCollection::insert_many(Session& session, const std::vector<Document>& documents,
                                                           const InsertManyOptions<Document>& options) {
  return insert_many_in(state(session), documents, spec(options));
}

// ---- read ---------------------------------------------------------------------------

Cursor<Document> DocumentCollection::find(const Document& filter, const FindOptions<Document>& options) const {
  return detail::Access::make<Cursor<Document>>(core_.find(nullptr, filter, spec(options)), core_);
}
Cursor<Document> DocumentCollection::find(Session& session, const Document& filter,
                                          const FindOptions<Document>& options) const {
  return detail::Access::make<Cursor<Document>>(core_.find(state(session), filter, spec(options)), core_);
}

std::optional<Document> DocumentCollection::find_one(const Document& filter,
                                                     const FindOptions<Document>& options) const {
  std::optional<Document> found;
  detail::find_first(core_, nullptr, filter, spec(options), detail::decode_into(found));
  return found;
}
std::optional<Document> DocumentCollection::find_one(Session& session, const Document& filter,
                                                     const FindOptions<Document>& options) const {
  std::optional<Document> found;
  detail::find_first(core_, state(session), filter, spec(options), detail::decode_into(found));
  return found;
}

std::int64_t DocumentCollection::count(const Document& filter, const CountOptions<Document>& options) const {
  return core_.count(nullptr, filter, spec(options));
}
std::int64_t DocumentCollection::count(Session& session, const Document& filter,
                                       const CountOptions<Document>& options) const {
  return core_.count(state(session), filter, spec(options));
}

Cursor<Document> DocumentCollection::aggregate(const std::vector<Document>& stages,
                                               const AggregateOptions<Document>& options) const {
  const Document pipeline = detail::make_pipeline(stages);
  return detail::Access::make<Cursor<Document>>(core_.aggregate(nullptr, pipeline.get(), spec(options)), core_);
}
Cursor<Document> DocumentCollection::aggregate(Session& session, const std::vector<Document>& stages,
                                               const AggregateOptions<Document>& options) const {
  const Document pipeline = detail::make_pipeline(stages);
  return detail::Access::make<Cursor<Document>>(core_.aggregate(state(session), pipeline.get(), spec(options)), core_);
}

// ---- update and delete --------------------------------------------------------------

UpdateResult<Document> DocumentCollection::update_in(detail::SessionState* session, detail::UpdateKind kind,
                                                     const Document& filter, const Document& update,
                                                     const detail::UpdateSpec& options) {
  detail::WriteOutcome outcome = core_.update(session, kind, filter, update, options);
  UpdateResult<Document> result{outcome.matched, outcome.modified, std::nullopt};
  if (!outcome.upserted_ids.empty()) result.upserted_id = std::move(outcome.upserted_ids.front().second);
  return result;
}
UpdateResult<Document> DocumentCollection::update_one(const Document& filter, const Document& update,
                                                      const UpdateOptions<Document>& options) {
  detail::check_update_operators(update);  // else findAndModify would replace the match
  return update_in(nullptr, detail::UpdateKind::one, filter, update, spec(options));
}
UpdateResult<Document> DocumentCollection::update_one(Session& session, const Document& filter, const Document& update,
                                                      const UpdateOptions<Document>& options) {
  detail::check_update_operators(update);  // else findAndModify would replace the match
  return update_in(state(session), detail::UpdateKind::one, filter, update, spec(options));
}
UpdateResult<Document> DocumentCollection::update_many(const Document& filter, const Document& update,
                                                       const UpdateOptions<Document>& options) {
  detail::check_update_operators(update);  // else findAndModify would replace the match
  return update_in(nullptr, detail::UpdateKind::many, filter, update, spec(options));
}
UpdateResult<Document> DocumentCollection::update_many(Session& session, const Document& filter,
                                                       const Document& update, const UpdateOptions<Document>& options) {
  detail::check_update_operators(update);  // else findAndModify would replace the match
  return update_in(state(session), detail::UpdateKind::many, filter, update, spec(options));
}
UpdateResult<Document> DocumentCollection::replace_one(const Document& filter, const Document& replacement,
                                                       const ReplaceOptions<Document>& options) {
  check_replacement(replacement);
  return update_in(nullptr, detail::UpdateKind::replace, filter, replacement, spec(options));
}
UpdateResult<Document> DocumentCollection::replace_one(Session& session, const Document& filter,
                                                       const Document& replacement,
                                                       const ReplaceOptions<Document>& options) {
  check_replacement(replacement);
  return update_in(state(session), detail::UpdateKind::replace, filter, replacement, spec(options));
}

DeleteResult DocumentCollection::delete_one(const Document& filter, const DeleteOptions<Document>& options) {
  return {core_.remove(nullptr, false, filter, spec(options)).deleted};
}
DeleteResult DocumentCollection::delete_one(Session& session, const Document& filter,
                                            const DeleteOptions<Document>& options) {
  return {core_.remove(state(session), false, filter, spec(options)).deleted};
}
DeleteResult DocumentCollection::delete_many(const Document& filter, const DeleteOptions<Document>& options) {
  return {core_.remove(nullptr, true, filter, spec(options)).deleted};
}
DeleteResult DocumentCollection::delete_many(Session& session, const Document& filter,
                                             const DeleteOptions<Document>& options) {
  return {core_.remove(state(session), true, filter, spec(options)).deleted};
}

// ---- find and modify ----------------------------------------------------------------

std::optional<Document> DocumentCollection::modify_in(detail::SessionState* session, const Document& filter,
                                                      const Document* update,
                                                      const detail::FindAndModifySpec& options) {
  return core_.find_one_and_modify(session, filter, update, options);
}
std::optional<Document> DocumentCollection::find_one_and_update(const Document& filter, const Document& update,
                                                                const FindOneAndUpdateOptions<Document>& options) {
  detail::check_update_operators(update);  // else findAndModify would replace the match
  return modify_in(nullptr, filter, &update, spec(options));
}
std::optional<Document> DocumentCollection::find_one_and_update(Session& session, const Document& filter,
                                                                const Document& update,
                                                                const FindOneAndUpdateOptions<Document>& options) {
  detail::check_update_operators(update);  // else findAndModify would replace the match
  return modify_in(state(session), filter, &update, spec(options));
}
std::optional<Document> DocumentCollection::find_one_and_replace(const Document& filter, const Document& replacement,
                                                                 const FindOneAndReplaceOptions<Document>& options) {
  check_replacement(replacement);
  return modify_in(nullptr, filter, &replacement, spec(options));
}
std::optional<Document> DocumentCollection::find_one_and_replace(Session& session, const Document& filter,
                                                                 const Document& replacement,
                                                                 const FindOneAndReplaceOptions<Document>& options) {
  check_replacement(replacement);
  return modify_in(state(session), filter, &replacement, spec(options));
}
std::optional<Document> DocumentCollection::find_one_and_delete(const Document& filter,
                                                                const FindOneAndDeleteOptions<Document>& options) {
  return modify_in(nullptr, filter, nullptr, spec(options));
}
std::optional<Document> DocumentCollection::find_one_and_delete(Session& session, const Document& filter,
                                                                const FindOneAndDeleteOptions<Document>& options) {
  return modify_in(state(session), filter, nullptr, spec(options));
}

void DocumentCollection::drop() const { core_.drop(nullptr); }

}  // namespace odm
