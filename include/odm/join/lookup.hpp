#pragma once
// A query and its joins in one call, run where the options say (JoinOptions::side):
//
//   odm::JoinOptions options;
//   options.side = odm::JoinSide::server;                    // one aggregate with $lookup
//   odm::Resolved<Order> orders = odm::find_joined(db, filter, odm::sort(odm::asc(&Order::id)), options,
//       odm::with(&Order::items, odm::with(&LineItem::product, odm::with(&Product::category))));
//
// `client` is find(filter).with(...): one find for the documents, then one per relation and
// level. `server` sends one aggregate, `[{$match}, {$sort}, {$lookup}...]`, with one
// `$lookup` per relation and level, flattened: a nested level looks up the targets of the
// level above through the field the level above wrote them into (localField
// "__odm_0.category"), so each level costs one `$lookup` over the documents, whatever their
// number, and every stage is the localField/foreignField form MongoDB has had since 3.2
// (an array localField since 3.4): no `let`/`pipeline` (3.6, and with localField 5.0),
// which the odm test server and mongo-java-server do not all run.
//
// `$lookup` gives each document its matches de-duplicated and unordered; odm reads them
// with the client-side join's own code (join/lookup_results.hpp), so that ids, order,
// duplicates, Dangling policies and skipped bad documents come out exactly as from the
// client form, with the same result type. The price is in bytes: each document carries its
// targets (a publisher shared by 1,000 books travels 1,000 times), and a document with all
// its targets must stay under MongoDB's 16 MiB limit (the server fails the aggregate
// otherwise). Fields named `__odm_<n>` are where the targets travel; a model must not
// store fields of that name.
//
// A relation `$lookup` cannot express is refused before anything is sent, with
// odm::UsageError naming it: a path through std::map values (the keys are data, and a
// `$lookup` path has no wildcard), and an array directly inside an array (a localField
// does not look into nested arrays). Join those on the client.

#include <odm/bson/document.hpp>
#include <odm/driver/collection.hpp>
#include <odm/join/join.hpp>
#include <odm/query/expression.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace odm {

namespace detail {

/// The aggregate command's `{pipeline: [...]}` for a server-side join: `$match` on
/// `filter`, `$sort` (when not empty), then one `$lookup` per fetch step of `relations`,
/// numbered in the order the join runs them (join/lookup_results.hpp). Throws UsageError,
/// before anything is sent, for a relation `$lookup` cannot express. `sources` receives a
/// description of each fetch step, for messages.
Document lookup_pipeline(const Document& filter, const Document& sort, const std::vector<const JoinStep*>& relations,
                         std::vector<std::string>& sources);

/// Whether `key` is where a server-side join put a step's targets; sets `step` if so.
bool lookup_field(std::string_view key, std::size_t& step);

/// Adds the target documents of every `__odm_<n>` field of `document` to their pools.
void collect_lookups(const bson_t* document, LookupResults& results);

/// `document` without its `__odm_<n>` fields, for a model that refuses or keeps unknown fields.
Document without_lookups(const bson_t* document);

template <class T>
T decode_joined(const bson_t* document) {
  if constexpr (is_strict<T> || keeps_unknown_fields<T>)
    return from_bson<T>(without_lookups(document).get());
  else
    return from_bson<T>(document);  // a model that ignores unknown fields ignores them
}

template <class T, class... More>
Resolved<T> find_joined_on_server(const Database& db, const Filter<T>& filter, const Sort<T>& sort,
                                  const JoinOptions& options, const Relation<T>& first, const More&... more) {
  const std::vector<const JoinStep*> relations{&first.step(), &more.step()...};
  LookupResults results;
  const Document pipeline = lookup_pipeline(filter.bson(), sort.bson(), relations, results.sources);
  results.pools.resize(results.sources.size());

  auto cursor = db.collection<T>().template aggregate_raw<Document>(pipeline);
  std::vector<Document> rows;  // kept: the pools point into them
  for (Document& row : cursor) rows.push_back(std::move(row));

  std::vector<SkippedDocument> skipped;
  std::vector<T> documents;
  documents.reserve(rows.size());
  const std::string source = "aggregate on " + db.name() + "." + std::string(collection_name<T>);
  for (const Document& row : rows) {
    try {
      documents.push_back(decode_joined<T>(row.get()));
    } catch (DecodeError& error) {
      if (options.bad_documents == BadDocuments::raise) {
        locate_decode_error(error, row.get(), source);
        throw;  // keeps its type (a SchemaVersionError stays one)
      }
      skipped.push_back(SkippedDocument{id_field(row.get()), located_decode_error(error, row.get(), source)});
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

/// The documents of T matching `filter` in `sort` order, with `relations` resolved, on the
/// client or on the server as `options.side` says; both give the same result. Bad
/// documents are thrown or skipped and reported (Resolved::skipped()) as
/// `options.bad_documents` says, at the base query and at every level.
template <class T, class... More>
Resolved<T> find_joined(const Database& db, const Filter<T>& filter, const Sort<T>& sort, const JoinOptions& options,
                        const Relation<T>& first, const More&... more) {
  static_assert((std::is_convertible_v<const More&, const Relation<T>&> && ...),
                "odm::find_joined: after the first relation, pass only relations of the same model (odm::with(...))");
  if (options.side == JoinSide::server) return detail::find_joined_on_server(db, filter, sort, options, first, more...);
  FindOptions<T> find_options;
  if (!sort.bson().empty()) find_options.sort(sort);
  auto cursor = db.collection<T>().find(filter, std::move(find_options));
  if (options.bad_documents == BadDocuments::skip) cursor.skip_bad_documents();
  std::vector<T> documents = cursor.to_vector();
  std::vector<SkippedDocument> skipped = std::move(cursor).skipped();
  const JoinOptions reporting = detail::SkipReport::into(options, skipped);
  first(db, documents, reporting);
  (more(db, documents, reporting), ...);
  return Resolved<T>(db, std::move(documents), options, std::move(skipped));
}

/// The same in the server's order (no sort).
template <class T, class... More>
Resolved<T> find_joined(const Database& db, const Filter<T>& filter, const JoinOptions& options, const Relation<T>& first,
                        const More&... more) {
  return find_joined(db, filter, Sort<T>(), options, first, more...);
}

}  // namespace odm
