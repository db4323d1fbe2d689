#pragma once
// What an update document writes, asked in one place by the query layer's renamed members
// (odm/query/previous_names.cpp) and by the driver's guarded writes (odm/driver/upgrade.cpp).
// Private to the compiled library.

#include <odm/bson/document.hpp>

#include <string_view>

namespace odm::detail {

/// Whether one of two dotted paths is the other or lies inside it (`box` and `box.label`,
/// not the siblings `box.size` and `box.label`): MongoDB refuses an update that writes two
/// such paths.
bool paths_overlap(std::string_view a, std::string_view b);

/// Whether `update` (a document of operators) writes a path overlapping `path`: a key of
/// any operator's document, or the target of a `$rename` (`{$rename: {from: "to"}}`
/// writes `to` as well as `from`).
bool writes_overlapping(const bson_t* update, std::string_view path);
/// The same, naming the first operator that does (a view into `update`); empty when none.
std::string_view operator_writing(const bson_t* update, std::string_view path);

/// A copy of `update` with the fields of `fields` appended to its operator `op`: inside
/// the update's own `op` when it has one (MongoDB refuses an operator given twice), else
/// in a new `op` at the end.
Document with_fields_added_to(const bson_t* update, std::string_view op, const bson_t* fields);

}  // namespace odm::detail
