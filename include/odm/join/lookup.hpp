#pragma once
// A query and its joins in one call, run where the options say (JoinOptions::side):
//
//   odm::JoinOptions options;
//   options.side = odm::JoinSide::server;                    // one aggregate with $lookup
//   odm::Resolved<Order> orders = odm::find_joined(db, filter, odm::sort(odm::asc(&Order::id)), options,
//       odm::with(&Order::items, odm::with(&LineItem::product, odm::with(&Product::category))));
//
// `client` is find(filter, find_options).with(...): one find for the documents, then one
// per relation and level. `server` sends one aggregate:
//
//   [{$match}, {$sort}, {$skip}, {$limit}, {$project},     the roots, as find returns them
//    {$addFields: {__odm_doc: "$$ROOT"}},                   a copy of each root, as stored
//    {$lookup: {..., as: "__odm_0"}}, ...,                  one per relation and level
//    {$project: {_id: 0, __odm_doc: 1, __odm_0: 1, ...}}]   only the copy and the matches
//
// A nested level looks up the targets of the level above through the field the level
// above wrote them into (localField "__odm_0.category"), so each level costs one `$lookup`
// over the documents, whatever their number, and every `$lookup` is the
// localField/foreignField form MongoDB has had since 3.2 (an array localField since 3.4):
// no `let`/`pipeline` (3.6, and with localField 5.0), which the odm test server and
// mongo-java-server do not all run.
//
// Why the copy: a `$lookup` writes its `as` field over a stored field of that name, and a
// stored document may hold any name (another program may have written `__odm_0`). The
// root is decoded from the copy, taken by `$addFields` before any stage writes a field, so
// it comes back exactly as stored whatever its field names; the `as` names start with a
// prefix that no field the stages read starts with (a relation's own field named
// `__odm_...` makes it longer), so no `$lookup` reads a field another one overwrote. The
// final `$project` sends back only the copy and the matches: no byte twice.
//
// `$lookup` gives each document its matches de-duplicated and unordered; odm reads them
// with the client-side join's own code (join/lookup_results.hpp), so that ids, order,
// duplicates, Dangling policies and skipped bad documents come out exactly as from the
// client form, with the same result type. The price is in bytes: each document carries its
// targets (a publisher shared by 1,000 books travels 1,000 times), and a document with all
// its targets must stay under MongoDB's 16 MiB limit: past it MongoDB fails the aggregate
// (error 4568, BSONObjectTooLarge, "Total size of documents in <collection> matching
// ... exceeds maximum document size"), odm throws that odm::ServerError with the server's
// code and message and returns nothing; the client form has no such limit.
//
// `$lookup` compares the stored reference with the stored `_id`, where the client form
// sends each decoded id as its codec writes it: for ids of a user type (a sub-document,
// which another program may store with its fields in another order) the ids a `$lookup`
// found no target for are asked for with the client form's `$in` (join.hpp,
// lookup_targets), so that both forms find the same targets.
//
// A relation `$lookup` cannot express is refused before anything is sent, with
// odm::UsageError naming it: a path through std::map values (the keys are data, and a
// `$lookup` path has no wildcard), and an array directly inside an array (a localField
// does not look into nested arrays); so is a filter `$match` does not run (`$where`,
// `$near`, `$nearSphere`). Join those on the client.

#include <odm/bson/document.hpp>
#include <odm/driver/collection.hpp>
#include <odm/driver/options.hpp>
#include <odm/error.hpp>
#include <odm/join/join.hpp>
#include <odm/query/expression.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace odm {

namespace detail {

/// The query of the roots of a server-side join, as find options give it.
struct LookupQuery {
  Document filter;
  Document sort;        // `{}`: none
  Document projection;  // `{}`: every field
  std::int64_t skip = 0;
  std::int64_t limit = 0;  // 0: none; negative: at most -limit, as find's one batch
};

/// The aggregate command's `{pipeline: [...]}` for a server-side join of the roots `query`
/// selects (the stages above), with one `$lookup` per fetch step of `relations`, numbered
/// in the order the join runs them (join/lookup_results.hpp). Throws UsageError, before
/// anything is sent, for a relation `$lookup` cannot express and for a filter `$match`
/// does not run (`$where`, `$near`, `$nearSphere`). Sets `results` up to read
/// the rows: the names of their fields, a pool per step, and each step's description for
/// messages.
Document lookup_pipeline(const LookupQuery& query, const std::vector<const JoinStep*>& relations,
                         LookupResults& results);

/// The root a result row carries (its copy as stored), viewed in place in `document`;
/// false when the row has none (not a row of this pipeline).
bool joined_document(const bson_t* row, const LookupResults& results, bson_t& document);

/// Adds the target documents of every step's field of the result row `row` to their pools.
void collect_lookups(const bson_t* row, LookupResults& results);

/// The aggregate's options from find's: the settings every command shares, and the batch
/// size.
template <class T>
struct JoinedAggregateOptions : AggregateOptions<T> {
  explicit JoinedAggregateOptions(const FindSpec& find) {
    static_cast<CommonSpec&>(this->spec_) = find;
    this->spec_.batch_size = find.batch_size;
  }
};

template <class T, class... More>
Resolved<T> find_joined_on_server(const Database& db, const Filter<T>& filter, const FindOptions<T>& find_options,
                                  const JoinOptions& options, const Relation<T>& first, const More&... more) {
  const FindSpec& find = OptionsAccess::spec(find_options);
  if (find.collation)
    throw UsageError("odm::find_joined: a collation would also change how each $lookup matches ids (the client "
                     "form's $in on _id uses none), so the two forms would differ; filter without it, or join on "
                     "the client (JoinSide::client)");
  const std::vector<const JoinStep*> relations{&first.step(), &more.step()...};
  LookupResults results;
  const Document pipeline = lookup_pipeline(
      LookupQuery{filter.bson(), find.sort, find.projection, find.skip.value_or(0), find.limit.value_or(0)}, relations,
      results);

  auto cursor = db.collection<T>().template aggregate_raw<Document>(pipeline, JoinedAggregateOptions<T>(find));
  std::vector<Document> rows;  // kept: the pools point into them
  for (Document& row : cursor) rows.push_back(std::move(row));

  std::vector<SkippedDocument> skipped;
  std::vector<T> documents;
  documents.reserve(rows.size());
  const std::string source = "aggregate on " + db.name() + "." + std::string(collection_name<T>);
  for (const Document& row : rows) {
    bson_t document;
    if (!joined_document(row.get(), results, document))
      throw DataError("odm::find_joined: a row of the " + source + " has no field " + results.document_field() +
                      " holding its document: " + row.to_json().substr(0, 200));
    try {
      documents.push_back(from_bson<T>(&document));
    } catch (DecodeError& error) {
      if (options.bad_documents == BadDocuments::raise) {
        locate_decode_error(error, &document, source);
        throw;  // keeps its type (a SchemaVersionError stays one)
      }
      skipped.push_back(SkippedDocument{id_field(&document), located_decode_error(error, &document, source)});
      continue;  // a skipped document's targets are not gathered, as in the client form
    }
    collect_lookups(row.get(), results);
  }

  JoinOptions plain = options;
  plain.side = JoinSide::client;  // further .with(...) on the result join on the client
  const JoinOptions reading = SkipReport::with_lookup(SkipReport::into(plain, skipped), results);
  first(db, documents, reading);
  (more(db, documents, reading), ...);
  return Resolved<T>(db, std::move(documents), plain, std::move(skipped));
}

}  // namespace detail

/// The documents of T that `filter` and `find_options` select (sort, skip, limit,
/// projection: as find() reads them), with `relations` resolved, on the client or on the
/// server as `options.side` says; both give the same result. On the server, skip, limit
/// and projection apply to the roots before the first `$lookup` (only the selected roots
/// are joined); the options every command takes (comment, time limit, read preference and
/// concern, hint) and the batch size go to the aggregate, and a collation is refused
/// (it would change how `$lookup` matches ids). Bad documents are thrown or skipped and
/// reported (Resolved::skipped()) as `options.bad_documents` says, at the base query and
/// at every level.
template <class T, class... More>
Resolved<T> find_joined(const Database& db, const Filter<T>& filter, const FindOptions<T>& find_options,
                        const JoinOptions& options, const Relation<T>& first, const More&... more) {
  static_assert((std::is_convertible_v<const More&, const Relation<T>&> && ...),
                "odm::find_joined: after the first relation, pass only relations of the same model (odm::with(...))");
  if (options.side == JoinSide::server)
    return detail::find_joined_on_server(db, filter, find_options, options, first, more...);
  auto cursor = db.collection<T>().find(filter, find_options);
  if (options.bad_documents == BadDocuments::skip) cursor.skip_bad_documents();
  std::vector<T> documents = cursor.to_vector();
  std::vector<SkippedDocument> skipped = std::move(cursor).skipped();
  const JoinOptions reporting = detail::SkipReport::into(options, skipped);
  first(db, documents, reporting);
  (more(db, documents, reporting), ...);
  return Resolved<T>(db, std::move(documents), options, std::move(skipped));
}

/// The same in `sort` order.
template <class T, class... More>
Resolved<T> find_joined(const Database& db, const Filter<T>& filter, const Sort<T>& sort, const JoinOptions& options,
                        const Relation<T>& first, const More&... more) {
  FindOptions<T> find_options;
  if (!sort.bson().empty()) find_options.sort(sort);
  return find_joined(db, filter, find_options, options, first, more...);
}

/// The same in the server's order (no sort).
template <class T, class... More>
Resolved<T> find_joined(const Database& db, const Filter<T>& filter, const JoinOptions& options, const Relation<T>& first,
                        const More&... more) {
  return find_joined(db, filter, FindOptions<T>(), options, first, more...);
}

}  // namespace odm
