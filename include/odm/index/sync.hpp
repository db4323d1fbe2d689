#pragma once
// Making a database's indexes match the models' plan (odm/index/index.hpp).
//
//   auto report = odm::sync_indexes<Book, Publisher, Volume>(db);          // creates what is missing
//   auto plan = odm::sync_indexes<Book>(db, odm::IndexSyncOptions{.dry_run = true});
//   std::cout << plan.to_string();                                          // what it would do
//
// Idempotent: a second run creates nothing. An index that exists with the same keys but
// other options (or the same name and other keys) is reported as differing and left as
// it is: changing it means dropping it, which odm never does unless asked
// (`drop_unplanned` drops indexes no model plans; `_id_` is never touched).

#include <odm/driver/client.hpp>
#include <odm/index/index.hpp>

#include <string>
#include <vector>

namespace odm {

struct IndexSyncOptions {
  /// Only compare and report; change nothing.
  bool dry_run = false;
  /// Also drop the indexes of the planned collections that no model plans.
  bool drop_unplanned = false;
};

struct IndexDifference {
  IndexModel planned;
  Document existing;  // the index as listIndexes reports it
  std::string what;   // "unique: planned true, existing false"
};

struct IndexSyncReport {
  IndexSyncReport() = default;
  // Copied, moved and destroyed in the library (odm/index/index.cpp): compiled once, not in every file.
  IndexSyncReport(const IndexSyncReport&);
  IndexSyncReport(IndexSyncReport&&) noexcept;
  IndexSyncReport& operator=(const IndexSyncReport&);
  IndexSyncReport& operator=(IndexSyncReport&&) noexcept;
  ~IndexSyncReport();

  std::vector<IndexModel> created;    // (or, in a dry run, to be created)
  std::vector<IndexModel> unchanged;  // already there as planned
  std::vector<IndexDifference> differing;
  std::vector<std::string> unplanned;  // "collection.name" of indexes no model plans
  std::vector<std::string> dropped;    // with drop_unplanned (or, in a dry run, to be dropped)
  bool dry_run = false;

  /// The plan and its outcome, one line per index.
  std::string to_string() const;
};

/// Compares `plan` with the indexes that exist and creates the missing ones.
IndexSyncReport sync_indexes(const Database& db, const std::vector<IndexModel>& plan,
                             const IndexSyncOptions& options = {});

/// The same for the plan of the given models.
template <class... Models>
IndexSyncReport sync_indexes(const Database& db, const IndexSyncOptions& options = {}) {
  return sync_indexes(db, index_plan_of<Models...>(), options);
}

}  // namespace odm
