// The one place where typed filters, updates and sorts become BSON, and where MongoDB's
// rules for combining them live. Compiled once here instead of in every file that
// builds queries.
#include <odm/bson/writer.hpp>
#include "special_members.hpp"
#include <odm/fields/money.hpp>
#include <odm/query/filter.hpp>
#include <odm/query/update.hpp>
#include <odm/query/value.hpp>

#include <algorithm>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace odm::detail {

namespace {

using Kind = FilterNode::Kind;

std::string_view op_name(ConditionOp op) {
  switch (op) {
    case ConditionOp::eq: return "$eq";
    case ConditionOp::ne: return "$ne";
    case ConditionOp::lt: return "$lt";
    case ConditionOp::lte: return "$lte";
    case ConditionOp::gt: return "$gt";
    case ConditionOp::gte: return "$gte";
    case ConditionOp::in: return "$in";
    case ConditionOp::nin: return "$nin";
    case ConditionOp::all: return "$all";
    case ConditionOp::exists: return "$exists";
    case ConditionOp::size: return "$size";
    case ConditionOp::regex: return "$regex";
    case ConditionOp::elem_match: return "$elemMatch";
  }
  return "";
}

/// The node, its depth counted. Throws odm::ValueError past max_filter_depth: MongoDB
/// "supports no more than 100 levels of nesting for BSON documents"
/// (https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-Nested-Depth-for-BSON-Documents).
/// Whether `child` is an operand `node` takes in as its own: an and inside an and, an or
/// inside an or. Such a child is written as if its operands were the node's (so it adds
/// no depth), which lets a loop of `f = f || c` share the operands built so far instead
/// of copying them (see flattened).
bool spliced(const FilterNode& node, const FilterExpr& child) {
  return child && child->kind == node.kind && (node.kind == Kind::all_of || node.kind == Kind::any_of);
}

/// Calls visit(operand) for the operands of `node` in order, those of spliced children in
/// their place, without recursion (a loop may have nested thousands of them).
template <class Visit>
void for_each_operand(const FilterNode& node, Visit&& visit) {
  const auto nested = [&](const FilterExpr& child) { return spliced(node, child); };
  if (std::none_of(node.children.begin(), node.children.end(), nested)) {
    for (const auto& child : node.children) visit(child);
    return;
  }
  std::vector<std::pair<const FilterNode*, std::size_t>> stack{{&node, 0}};
  while (!stack.empty()) {
    const FilterNode* at = stack.back().first;
    const std::size_t index = stack.back().second++;
    if (index == at->children.size()) {
      stack.pop_back();
    } else if (nested(at->children[index])) {
      stack.emplace_back(at->children[index].get(), 0);
    } else {
      visit(at->children[index]);
    }
  }
}

/// Deletes a node and the descendants only it owned one at a time, so that releasing a
/// long chain of spliced operands does not recurse once per link.
void release_node(FilterNode* node) {
  std::vector<FilterExpr> pending = std::move(node->children);
  delete node;
  while (!pending.empty()) {
    FilterExpr child = std::move(pending.back());
    pending.pop_back();
    if (child && child.use_count() == 1) {  // the last owner: take its children first
      // Allocated non-const by make_node, so the const_cast is allowed.
      auto& grandchildren = const_cast<FilterNode&>(*child).children;
      std::move(grandchildren.begin(), grandchildren.end(), std::back_inserter(pending));
      grandchildren.clear();
    }
  }
}

/// The node, its depth counted. Throws odm::ValueError past max_filter_depth: MongoDB
/// "supports no more than 100 levels of nesting for BSON documents"
/// (https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-Nested-Depth-for-BSON-Documents).
FilterExpr make_node(FilterNode node) {
  for (const auto& child : node.children)
    if (child) node.depth = std::max(node.depth, child->depth + (spliced(node, child) ? 0 : 1));
  if (node.depth > max_filter_depth)
    throw ValueError("the filter nests its conditions " + std::to_string(node.depth) +
                     " levels deep; MongoDB takes documents nested at most 100 levels");
  return FilterExpr(new FilterNode(std::move(node)), release_node);
}

/// The one element an operand is stored as.
bson_iter_t operand(const Document& value) {
  bson_iter_t it;
  if (!bson_iter_init(&it, value.get()) || !next(it)) throw ValueError("a query condition has no operand");
  return it;
}

void append_operand(bson_t* out, std::string_view key, const Document& value) {
  const bson_iter_t it = operand(value);
  // A condition's or an update's operand is encoded under its path, the key it is written
  // under here: then its bytes are the element, copied whole (bson_append_iter would
  // decode and encode it again, about twice the cost).
  bson_iter_t rest = it;
  if (key_of(it) == key && !bson_iter_next(&rest)) {
    check_append(bson_concat(out, value.get()));
    return;
  }
  check_append(bson_append_iter(out, key.data(), key_length(key), &it));
}

// ---- filters in a document ------------------------------------------------------------
//
// MongoDB ANDs the fields of one filter document implicitly, and a document holds each
// key once: "use an explicit AND with the $and operator when the same field or operator
// has to be specified in multiple expressions"
// (https://www.mongodb.com/docs/manual/reference/operator/query/and/). So the operands
// of && share one document while their keys are distinct, and become `$and: [...]` as
// soon as one would repeat (two conditions on one field, two `$or`s).
//
// `$not` "performs a logical NOT operation on the specified <operator-expression>" (or a
// regular expression) of one field, and also matches documents without the field
// (https://www.mongodb.com/docs/manual/reference/operator/query/not/); it cannot take a
// plain value nor a whole filter. Everything else is negated by `$nor: [a]`, which
// "selects the documents that fail all the query expressions in the array", the missing
// field included (https://www.mongodb.com/docs/manual/reference/operator/query/nor/).

void write_into(bson_t* out, const FilterNode& node);

/// Whether `!node` is `{path: {$not: ...}}`.
bool takes_not(const FilterNode* node) {
  return node != nullptr && node->kind == Kind::condition && node->op != ConditionOp::eq;
}

/// The keys `node` writes at the top of a document.
void top_keys(const FilterNode& node, std::vector<std::string_view>& keys);

bool implicit_and(const FilterNode& node) {
  std::vector<std::string_view> keys;
  for_each_operand(node, [&](const FilterExpr& child) { top_keys(*child, keys); });
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) == keys.end();
}

void top_keys(const FilterNode& node, std::vector<std::string_view>& keys) {
  switch (node.kind) {
    case Kind::condition: keys.push_back(node.path); break;
    case Kind::all_of:
      if (implicit_and(node))
        for_each_operand(node, [&](const FilterExpr& child) { top_keys(*child, keys); });
      else
        keys.push_back("$and");
      break;
    case Kind::any_of: keys.push_back("$or"); break;
    case Kind::none_of: keys.push_back("$nor"); break;
    case Kind::negation:  // a view of the path itself (a ?: with "$nor" would view a temporary copy)
      keys.push_back(takes_not(node.children[0].get()) ? std::string_view(node.children[0]->path) : "$nor");
      break;
    case Kind::raw: {
      bson_iter_t it;
      if (bson_iter_init(&it, node.value.get()))
        while (next(it)) keys.push_back(key_of(it));
      break;
    }
  }
}

/// `{op: [operand, ...]}` of the node's operands; a null operand is `{}`.
void write_logical(bson_t* out, std::string_view op, const FilterNode& node) {
  ChildWriter array(out, op, ChildWriter::Kind::array);
  for_each_operand(node, [&](const FilterExpr& item) {
    const ArrayKey key(array.next_index());
    ChildWriter document(array.get(), key.view());
    if (item) write_into(document.get(), *item);
    document.close();
  });
  array.close();
}

/// Appends `op: operand` of a condition into its field's operator document.
void write_operator(bson_t* out, const FilterNode& condition) {
  if (condition.op == ConditionOp::elem_match) {
    ChildWriter match(out, "$elemMatch");
    if (!condition.children.empty()) write_element_condition(match.get(), *condition.children[0]);
    match.close();
  } else {
    append_operand(out, op_name(condition.op), condition.value);
  }
}

void write_condition(bson_t* out, const FilterNode& condition) {
  if (condition.op == ConditionOp::eq || condition.op == ConditionOp::regex) {
    append_operand(out, condition.path, condition.value);  // {path: value}, {path: /re/}
    return;
  }
  ChildWriter operators(out, condition.path);
  write_operator(operators.get(), condition);
  operators.close();
}

void write_into(bson_t* out, const FilterNode& node) {
  switch (node.kind) {
    case Kind::condition: write_condition(out, node); break;
    case Kind::all_of:
      if (implicit_and(node))
        for_each_operand(node, [&](const FilterExpr& child) { write_into(out, *child); });
      else
        write_logical(out, "$and", node);
      break;
    case Kind::any_of: write_logical(out, "$or", node); break;
    case Kind::none_of: write_logical(out, "$nor", node); break;
    case Kind::negation: {
      const FilterNode* negated = node.children[0].get();
      if (!takes_not(negated)) {
        write_logical(out, "$nor", node);
        break;
      }
      ChildWriter operators(out, negated->path);
      if (negated->op == ConditionOp::regex) {
        append_operand(operators.get(), "$not", negated->value);  // {$not: /re/}
      } else {
        ChildWriter inverse(operators.get(), "$not");
        write_operator(inverse.get(), *negated);
        inverse.close();
      }
      operators.close();
      break;
    }
    case Kind::raw: check_append(bson_concat(out, node.value.get())); break;
  }
}

// ---- conditions on an array's element --------------------------------------------------
//
// `$elemMatch` and `$pull` take either a filter on the fields of a document element, or
// "operator expressions" on the element itself, all in one document: `{$gte: 80, $lt: 85}`
// (https://www.mongodb.com/docs/manual/reference/operator/query/elemMatch/, and the
// `$pull` page's "Remove All Items That Match a Specified $pull Condition"). That form ANDs
// its operators, holds each once, and negates with `$not`; it has no `$or`, and it
// cannot be mixed with field conditions.

struct ElementScope {
  bool element = false;
  bool fields = false;
};

void classify(const FilterNode& node, ElementScope& scope) {
  switch (node.kind) {
    case Kind::condition: (node.path.empty() ? scope.element : scope.fields) = true; break;
    case Kind::raw: scope.fields = true; break;
    default:
      for_each_operand(node, [&](const FilterExpr& child) {
        if (child) classify(*child, scope);
      });
  }
}

void write_operators(bson_t* out, const FilterNode& node, std::vector<std::string_view>& seen) {
  const auto claim = [&](std::string_view op) {
    if (std::find(seen.begin(), seen.end(), op) != seen.end())
      throw ValueError("the element condition uses " + std::string(op) +
                       " twice; MongoDB's operator form can hold each operator once");
    seen.push_back(op);
  };
  switch (node.kind) {
    case Kind::condition:
      if (node.op == ConditionOp::regex) {
        // {$regex: "pattern", $options: "i"}: the spelling Extended JSON can carry too.
        const bson_iter_t it = operand(node.value);
        const char* options = nullptr;
        const char* pattern = bson_iter_regex(&it, &options);
        claim("$regex");
        check_append(bson_append_utf8(out, "$regex", 6, pattern, -1));
        if (options != nullptr && *options != '\0') {
          claim("$options");
          check_append(bson_append_utf8(out, "$options", 8, options, -1));
        }
      } else {
        claim(op_name(node.op));
        write_operator(out, node);
      }
      break;
    case Kind::all_of:
      for_each_operand(node, [&](const FilterExpr& child) { write_operators(out, *child, seen); });
      break;
    case Kind::negation: {
      claim("$not");
      if (!node.children[0])
        throw ValueError("an element condition negates the empty condition (which matches every element); "
                         "MongoDB's operator form cannot say that");
      const FilterNode& negated = *node.children[0];
      if (negated.kind == Kind::condition && negated.op == ConditionOp::regex) {
        append_operand(out, "$not", negated.value);
      } else {
        ChildWriter inverse(out, "$not");
        std::vector<std::string_view> inner;
        write_operators(inverse.get(), negated, inner);
        inverse.close();
      }
      break;
    }
    case Kind::any_of:
    case Kind::none_of:
    case Kind::raw:
      throw ValueError("a condition on the element itself cannot combine alternatives (|| or odm::nor): MongoDB's "
                       "operator form ({$gt: 1, $lt: 5}) has no or; use .in({...}) or one elem_match per alternative");
  }
}

/// Validates `on_element` by writing it once, so that what MongoDB cannot say throws
/// where the filter or update is built.
void check_element_condition(const FilterExpr& on_element) {
  if (!on_element) return;
  Document scratch;
  write_element_condition(scratch.get_mutable(), *on_element);
}

}  // namespace

void write_element_condition(bson_t* out, const FilterNode& filter) {
  ElementScope scope;
  classify(filter, scope);
  if (scope.element && scope.fields)
    throw ValueError("an element condition mixes conditions on the element itself with conditions on its fields; "
                     "MongoDB cannot express that");
  if (!scope.element) {
    write_into(out, filter);
    return;
  }
  std::vector<std::string_view> seen;
  write_operators(out, filter, seen);
}

FilterExpr condition_node(ConditionOp op, std::string path, Document value) {
  return make_node({Kind::condition, op, std::move(path), std::move(value), {}});
}

FilterExpr elem_match_node(std::string path, FilterExpr on_element) {
  check_element_condition(on_element);
  std::vector<FilterExpr> children;
  if (on_element) children.push_back(std::move(on_element));
  return make_node({Kind::condition, ConditionOp::elem_match, std::move(path), Document(), std::move(children)});
}

FilterExpr raw_filter_node(Document document) {
  if (document.empty()) return nullptr;
  return make_node({Kind::raw, ConditionOp::eq, {}, std::move(document), {}});
}

namespace {
/// A node of that kind holding at most this many operands is copied into the node that
/// combines it; a larger one is shared as one child and written as its operands (see
/// spliced), so that combining in a loop copies a bounded number of operands per step.
constexpr std::size_t copied_operands = 16;

/// `kind` of a and b, the operands of those that are already of that kind spliced in.
FilterExpr flattened(Kind kind, const FilterExpr& a, const FilterExpr& b) {
  FilterNode node{kind, ConditionOp::eq, {}, Document(), {}};
  for (const FilterExpr* operand : {&a, &b}) {
    if ((*operand)->kind == kind && (*operand)->children.size() <= copied_operands)
      node.children.insert(node.children.end(), (*operand)->children.begin(), (*operand)->children.end());
    else
      node.children.push_back(*operand);
  }
  return make_node(std::move(node));
}
}  // namespace

FilterExpr all_of(const FilterExpr& a, const FilterExpr& b) {
  if (!a) return b;  // {} && b is b
  if (!b) return a;
  return flattened(Kind::all_of, a, b);
}

FilterExpr any_of(const FilterExpr& a, const FilterExpr& b) {
  if (!a || !b) return nullptr;  // one side matches everything
  return flattened(Kind::any_of, a, b);
}

FilterExpr none_of(std::vector<FilterExpr> operands) {
  return make_node({Kind::none_of, ConditionOp::eq, {}, Document(), std::move(operands)});
}

FilterExpr negation(const FilterExpr& operand) {
  if (operand && operand->kind == Kind::negation) return operand->children[0];  // !!a is a
  return make_node({Kind::negation, ConditionOp::eq, {}, Document(), {operand}});
}

Document write_filter(const FilterExpr& filter) {
  Document out;
  append_filter(out.get_mutable(), filter);
  return out;
}

void append_filter(bson_t* out, const FilterExpr& filter) {
  if (filter) write_into(out, *filter);
}

void append_lookup_by_id(bson_t* out, std::string_view key, std::string_view from, std::string_view local_field,
                         std::string_view as) {
  ChildWriter spec(out, key);
  check_append(bson_append_utf8(spec.get(), "from", 4, from.data(), key_length(from)));
  check_append(bson_append_utf8(spec.get(), "localField", 10, local_field.data(), key_length(local_field)));
  check_append(bson_append_utf8(spec.get(), "foreignField", 12, "_id", 3));
  check_append(bson_append_utf8(spec.get(), "as", 2, as.data(), key_length(as)));
  spec.close();
}

// ---- updates -------------------------------------------------------------------------

UpdateExpr pull_where(std::string path, FilterExpr on_element) {
  check_element_condition(on_element);
  if (!on_element) on_element = make_node({Kind::all_of, ConditionOp::eq, {}, Document(), {}});  // {}: every element
  UpdateExpr expr;
  expr.entries.push_back(UpdateEntry{"$pull", std::move(path), Document(), std::move(on_element), std::nullopt});
  return expr;
}

UpdateEntry::UpdateEntry(std::string op, std::string path, Document value, FilterExpr condition,
                         std::optional<EachModifiers> each)
    : op(std::move(op)),
      path(std::move(path)),
      value(std::move(value)),
      condition(std::move(condition)),
      each(std::move(each)) {}
ODM_DEFINE_SPECIAL_MEMBERS(UpdateEntry);

UpdateExpr::UpdateExpr(std::vector<UpdateEntry> entries, std::optional<Document> opaque)
    : entries(std::move(entries)), opaque(std::move(opaque)) {}
ODM_DEFINE_SPECIAL_MEMBERS(UpdateExpr);

SortExpr::SortExpr(std::vector<std::pair<std::string, Direction>> keys, std::optional<Document> opaque)
    : keys(std::move(keys)), opaque(std::move(opaque)) {}
ODM_DEFINE_SPECIAL_MEMBERS(SortExpr);

UpdateExpr UpdateExpr::raw(Document document) {
  UpdateExpr expr;
  bson_iter_t it;
  if (!bson_iter_init(&it, document.get())) throw ValueError("malformed update document");
  while (next(it)) {
    const std::string_view op = key_of(it);
    bson_iter_t fields;
    if (op.empty() || op.front() != '$' || !BSON_ITER_HOLDS_DOCUMENT(&it) || !bson_iter_recurse(&it, &fields) ||
        !next(fields)) {
      // Not {$op: {path: value, ...}}: kept whole, as written. (An operator without paths,
      // `{$set: {}}`, is kept too: dropped, the update could become `{}`, which MongoDB
      // reads as a replacement document that erases every field.)
      expr.entries.clear();
      expr.opaque = std::move(document);
      return expr;
    }
    bson_iter_t field = recurse(it);
    while (next(field)) {
      const std::string_view path = key_of(field);
      Document value;
      check_append(bson_append_iter(value.get_mutable(), path.data(), key_length(path), &field));
      expr.entries.push_back(UpdateEntry{std::string(op), std::string(path), std::move(value), nullptr, std::nullopt});
    }
  }
  return expr;
}

bool paths_conflict(std::string_view a, std::string_view b) {
  const auto inside = [](std::string_view outer, std::string_view inner) {
    return inner.size() > outer.size() && inner.substr(0, outer.size()) == outer && inner[outer.size()] == '.';
  };
  return a == b || inside(a, b) || inside(b, a);
}

UpdateExpr UpdateExpr::combine(const UpdateExpr& a, const UpdateExpr& b) {
  const auto empty = [](const UpdateExpr& x) { return x.entries.empty() && !x.opaque; };
  if (empty(a)) return b;
  if (empty(b)) return a;
  for (const UpdateExpr* side : {&a, &b})
    if (side->opaque) {
      bson_iter_t it;
      const std::string first =
          bson_iter_init(&it, side->opaque->get()) && next(it) ? std::string(key_of(it)) : std::string();
      throw ValueError("cannot combine updates: `" + first + "` does not hold a document of fields");
    }
  for (const auto& x : a.entries)
    for (const auto& y : b.entries)
      if (paths_conflict(x.path, y.path))
        throw ValueError("the update changes `" + x.path + "` with " + x.op + " and `" + y.path + "` with " + y.op +
                         "; MongoDB refuses two operators on the same path");
  UpdateExpr out = a;
  out.entries.insert(out.entries.end(), b.entries.begin(), b.entries.end());
  return out;
}

namespace {
void write_entry(bson_t* fields, const UpdateEntry& entry) {
  if (entry.condition) {  // $pull of the elements meeting a condition
    ChildWriter condition(fields, entry.path);
    write_element_condition(condition.get(), *entry.condition);
    condition.close();
  } else if (entry.each) {
    // https://www.mongodb.com/docs/manual/reference/operator/update/push/#modifiers
    ChildWriter modifiers(fields, entry.path);
    bson_t* out = modifiers.get();
    check_append(bson_append_array(out, "$each", 5, entry.value.get()));
    if (entry.each->position) check_append(bson_append_int32(out, "$position", 9, *entry.each->position));
    if (!entry.each->sort_keys.empty()) {
      ChildWriter sort(out, "$sort");
      append_sort_keys(sort.get(), entry.each->sort_keys);
      sort.close();
    } else if (entry.each->sort_direction) {
      check_append(bson_append_int32(out, "$sort", 5, direction_value(*entry.each->sort_direction)));
    }
    if (entry.each->slice) check_append(bson_append_int32(out, "$slice", 6, *entry.each->slice));
    modifiers.close();
  } else {
    append_operand(fields, entry.path, entry.value);
  }
}
}  // namespace

Document UpdateExpr::write() const {
  if (opaque) return *opaque;
  Document out;
  // Each operator where it first appears (no list of operators: an update has few entries).
  for (auto first = entries.begin(); first != entries.end(); ++first) {
    const std::string_view op = first->op;
    if (std::any_of(entries.begin(), first, [&](const UpdateEntry& earlier) { return earlier.op == op; })) continue;
    ChildWriter fields(out.get_mutable(), op);
    for (auto entry = first; entry != entries.end(); ++entry)
      if (entry->op == op) write_entry(fields.get(), *entry);
    fields.close();
  }
  return out;
}

namespace {
[[noreturn]] void throw_update_without_operator() {
  throw ValueError("the update has no operator: MongoDB would read {} as a replacement document and erase every "
                   "field but _id");
}
}  // namespace

void check_update_operators(const Document& update) {
  bson_iter_t it;
  if (!bson_iter_init(&it, update.get())) throw ValueError("malformed update document");
  bool any = false;
  while (next(it)) {
    any = true;
    const std::string_view key = key_of(it);
    if (key.empty() || key.front() != '$')
      throw ValueError("the update's `" + std::string(key) +
                       "` is not an update operator: MongoDB would read the document as a replacement (replace a "
                       "document with replace_one)");
  }
  if (!any) throw_update_without_operator();
}

Document UpdateExpr::write_to_send() const {
  if (!opaque && entries.empty()) throw_update_without_operator();
  if (opaque) check_update_operators(*opaque);
  return write();
}

// ---- sorts -----------------------------------------------------------------------------

void append_sort_keys(bson_t* out, const std::vector<std::pair<std::string, Direction>>& keys) {
  for (const auto& [path, direction] : keys)
    check_append(bson_append_int32(out, path.data(), key_length(path), direction_value(direction)));
}

void add_sort_key(std::vector<std::pair<std::string, Direction>>& keys, std::string path, Direction direction) {
  for (const auto& seen : keys)
    if (seen.first == path) throw ValueError("the sort names `" + path + "` twice");
  keys.emplace_back(std::move(path), direction);
}

Document SortExpr::write() const {
  if (opaque) return *opaque;
  Document out;
  append_sort_keys(out.get_mutable(), keys);
  return out;
}

void SortExpr::write_into(bson_t* out) const {
  if (opaque)
    check_append(bson_concat(out, opaque->get()));
  else
    append_sort_keys(out, keys);
}

}  // namespace odm::detail

namespace odm::detail {

void throw_assigned_null(const PathNames& names) {
  throw ValueError("`" + names.dotted() + "` cannot be set to null: the document holding it would no longer decode");
}

void check_assigned_currency(const PathNames& names, std::string_view code) {
  if (!Money::is_currency_code(code))
    throw ValueError("`" + names.dotted() + "` is set to " + quoted(code) +
                     ", which is not an ISO 4217 currency code (three uppercase letters): the Money would no longer "
                     "decode");
}

std::string PathNames::dotted(bool nested) const {
  std::string out;
  for (std::size_t i = 0; i < depth; ++i) {
    if (i != 0) out += '.';
    out += (i == 0 && nested) ? first_nested : names[i];
  }
  return out;
}

}  // namespace odm::detail
