// Adversarial probes (adv25) of how odm decodes a member renamed in its expand phase
// (odm::renamed_from): detail::decode_unordered / decode_field / read_from_name in
// odm/bson/codec.cpp, detail::reset_member and variant_shape<T>::fits in
// include/odm/bson/record.hpp.
//
// The rule under test (README, "Renaming a field while both versions run", row "read"):
// the old name's value when the document has it, else the new one's; a sub-document is
// never merged from both names ("what it lacks is what a fresh object holds"); each name's
// field must hold a value of the member's type and appears once, in whatever order the two
// come; a struct alternative of a std::variant counts either name as the member's field.
//
// The reference: documents are generated as a tree of fields (top level, embedded struct,
// std::optional struct, odm::Embedded struct, std::vector of structs, std::map of structs,
// each struct with its own renamed member: two levels of renames), each renamed member
// under no name, its new name, its old name, or both (in either order), with unknown
// fields named like the renamed ones in another case or as prefixes (decoys for the
// re-read by name), in odm's declaration order (the fast path) or shuffled. The expected
// object is computed here from the rule above, member by member. Two more families inject
// exactly one fault (a value of the wrong type anywhere, or one member name twice in one
// struct) and expect the DecodeError whose path() names the field that holds it.
//
// Seeds: each randomized test prints its seed and iteration (SCOPED_TRACE);
// ODM_ADVERSARY25_SEED overrides the base seed. The three defects these probes found
// (work growing as 3^depth with old names first, a variant's reason naming the wrong
// name, a renamed member of a renamed struct half-addressed by filters) are fixed; their
// probes assert.

#include "test_support.hpp"

#include <odm/evolution/extra.hpp>
#include <odm/evolution/rename.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace adversary_25 {

// ---- models -----------------------------------------------------------------------------------

inline std::vector<std::int32_t> default_codes() { return std::vector<std::int32_t>{1, 2}; }
inline std::optional<std::string> default_flat() { return std::string("F0"); }

/// An embedded struct with a renamed member, non-trivial initializers and an odm::Extra
/// (whose kept fields must come from one name only, too).
struct Addr {
  std::string street = "s0";  // renamed from "road"
  std::int32_t number = 7;
  std::vector<std::int32_t> codes = default_codes();
  std::optional<std::string> flat = default_flat();
  odm::Extra more;
  friend bool operator==(const Addr&, const Addr&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Addr::street>("road"), odm::defaulted(&Addr::street),
                                               odm::defaulted(&Addr::number), odm::defaulted(&Addr::codes));
  };
};

inline Addr special_home() {
  Addr a;
  a.street = "h0";
  a.number = 70;
  a.codes = std::vector<std::int32_t>{9};
  a.flat = std::nullopt;
  return a;
}
inline Addr special_box() {
  Addr a;
  a.street = "b0";
  a.number = 80;
  a.codes.clear();
  a.flat = std::string("FB");
  return a;
}
inline std::vector<Addr> one_past() { return std::vector<Addr>(1, special_home()); }

/// The main model: renamed members that are an embedded struct, an optional struct, an
/// odm::Embedded struct, a vector of structs and a number, each struct holding a renamed
/// member of its own; a map of such structs; an odm::Extra.
struct Outer {
  std::int64_t id = 0;
  std::string name;
  Addr home = special_home();             // renamed from "house"
  std::optional<Addr> work;               // renamed from "office"
  odm::Embedded<Addr> box = special_box();  // renamed from "crate"
  std::vector<Addr> past = one_past();    // renamed from "history"
  std::map<std::string, Addr> by_name;
  std::int32_t n = 5;  // renamed from "count"
  odm::Extra rest;
  friend bool operator==(const Outer&, const Outer&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(
        odm::renamed_from<&Outer::home>("house"), odm::defaulted(&Outer::home), odm::renamed_from<&Outer::work>("office"),
        odm::renamed_from<&Outer::box>("crate"), odm::defaulted(&Outer::box), odm::renamed_from<&Outer::past>("history"),
        odm::defaulted(&Outer::past), odm::defaulted(&Outer::by_name), odm::renamed_from<&Outer::n>("count"),
        odm::defaulted(&Outer::n));
  };
};

/// A strict model with a renamed member.
struct Tight {
  std::int32_t a = 0;
  std::string b;  // renamed from "bee"
  std::int32_t c = 0;
  friend bool operator==(const Tight&, const Tight&) = default;
  struct odm_model {
    static constexpr bool strict = true;
    static constexpr auto fields = odm::fields(odm::renamed_from<&Tight::b>("bee"));
  };
};

/// A renamed struct member past the 64th (a second word of "seen" bits), with an initializer.
#define ADV25_F(n) std::int32_t f##n = n;
struct Wide {
  ADV25_F(0) ADV25_F(1) ADV25_F(2) ADV25_F(3) ADV25_F(4) ADV25_F(5) ADV25_F(6) ADV25_F(7) ADV25_F(8) ADV25_F(9)
  ADV25_F(10) ADV25_F(11) ADV25_F(12) ADV25_F(13) ADV25_F(14) ADV25_F(15) ADV25_F(16) ADV25_F(17) ADV25_F(18)
  ADV25_F(19) ADV25_F(20) ADV25_F(21) ADV25_F(22) ADV25_F(23) ADV25_F(24) ADV25_F(25) ADV25_F(26) ADV25_F(27)
  ADV25_F(28) ADV25_F(29) ADV25_F(30) ADV25_F(31) ADV25_F(32) ADV25_F(33) ADV25_F(34) ADV25_F(35) ADV25_F(36)
  ADV25_F(37) ADV25_F(38) ADV25_F(39) ADV25_F(40) ADV25_F(41) ADV25_F(42) ADV25_F(43) ADV25_F(44) ADV25_F(45)
  ADV25_F(46) ADV25_F(47) ADV25_F(48) ADV25_F(49) ADV25_F(50) ADV25_F(51) ADV25_F(52) ADV25_F(53) ADV25_F(54)
  ADV25_F(55) ADV25_F(56) ADV25_F(57) ADV25_F(58) ADV25_F(59) ADV25_F(60) ADV25_F(61) ADV25_F(62) ADV25_F(63)
  ADV25_F(64) ADV25_F(65)
  Addr late = special_home();  // member 66, renamed from "early"
  std::int32_t f67 = 67;
  friend bool operator==(const Wide&, const Wide&) = default;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::renamed_from<&Wide::late>("early"));
  };
};
#undef ADV25_F

/// Variant alternatives that are structs with a renamed member.
struct Alt {
  std::string contact;  // renamed from "phone"
  friend bool operator==(const Alt&, const Alt&) = default;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Alt::contact>("phone"));
  };
};
struct WithVariant {
  std::int64_t id = 0;
  std::variant<Alt, std::int32_t> v;
  friend bool operator==(const WithVariant&, const WithVariant&) = default;
};

/// A leaf whose codec counts how often a value is decoded (not an aggregate, so it is not a
/// struct of members to odm).
class Counted {
 public:
  Counted() = default;
  std::int32_t value = 0;
  static inline std::size_t decodes = 0;
};

}  // namespace adversary_25

template <>
struct odm::codec<adversary_25::Counted> {
  using kind = odm::kind_of<std::int32_t>;
  static void encode(bson_t* parent, std::string_view key, const adversary_25::Counted& c) {
    odm::codec<std::int32_t>::encode(parent, key, c.value);
  }
  static void decode(const bson_iter_t& it, adversary_25::Counted& out) {
    ++adversary_25::Counted::decodes;
    odm::codec<std::int32_t>::decode(it, out.value);
  }
};

namespace adversary_25 {

/// Levels of structs, each holding the next under a renamed member (old name "old").
template <int N>
struct Level {
  Level<N - 1> sub;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Level::sub>("old"));
  };
};
template <>
struct Level<0> {
  Counted leaf;
};

// ---- the reference ----------------------------------------------------------------------------

using Rng = std::mt19937_64;

unsigned base_seed(unsigned fallback) {
  const char* env = std::getenv("ODM_ADVERSARY25_SEED");
  return env != nullptr ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : fallback;
}

int pick(Rng& rng, int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }
std::string word(Rng& rng) { return "v" + std::to_string(pick(rng, 100000)); }
std::string quote(const std::string& s) { return "\"" + s + "\""; }

/// One field of a generated document (or an element of an array).
struct Node {
  enum class Kind { scalar, document, array };
  std::string key;
  Kind kind = Kind::scalar;
  std::string text;        // a scalar's JSON
  std::vector<Node> kids;  // a document's fields, an array's elements (keyed "0", "1"...)
  bool member = false;     // a member's field or an element of one: a fault may go here
  bool record = false;     // a struct's document: a member name may not repeat in it
  std::string wrong;       // JSON of a value of another type than the member's
};

Node scalar(std::string key, std::string text, std::string wrong) {
  Node n;
  n.key = std::move(key);
  n.text = std::move(text);
  n.member = true;
  n.wrong = std::move(wrong);
  return n;
}

Node unknown(std::string key, std::string text) {
  Node n;
  n.key = std::move(key);
  n.text = std::move(text);
  return n;
}

std::string render(const Node& n) {
  if (n.kind == Node::Kind::scalar) return n.text;
  std::string out = n.kind == Node::Kind::document ? "{" : "[";
  bool first = true;
  for (const Node& k : n.kids) {
    if (!first) out += ", ";
    first = false;
    if (n.kind == Node::Kind::document) out += quote(k.key) + ": ";
    out += render(k);
  }
  out += n.kind == Node::Kind::document ? "}" : "]";
  return out;
}

/// An Extra holding a level's unknown fields, in document order (README: "decoding puts
/// every field no member names into it, in document order").
odm::Extra extra_of(const std::vector<Node>& kids) {
  Node doc;
  doc.kind = Node::Kind::document;
  for (const Node& k : kids)
    if (!k.member) doc.kids.push_back(k);
  const odm::Document d = odm::Document::from_json(render(doc));
  odm::Extra out;
  bson_iter_t it;
  bson_iter_init(&it, d.get());
  while (bson_iter_next(&it)) odm::codec<odm::Extra>::keep(it, out);
  return out;
}

/// `state`: 0 neither name, 1 the new one, 2 the old one, 3 both (old first or not).
void push_names(std::vector<Node>& kids, int state, Node new_field, Node old_field, bool old_first) {
  if (state == 3 && old_first) {
    kids.push_back(std::move(old_field));
    kids.push_back(std::move(new_field));
    return;
  }
  if (state == 1 || state == 3) kids.push_back(std::move(new_field));
  if (state == 2 || state == 3) kids.push_back(std::move(old_field));
}

/// Picks distinct unknown keys from `decoys`, adds them, and puts the level in odm's
/// declaration order (unknown fields last) a third of the time, else in a random order.
void arrange(std::vector<Node>& kids, const std::vector<std::string>& decoys, Rng& rng) {
  std::vector<std::string> keys = decoys;
  std::shuffle(keys.begin(), keys.end(), rng);
  const int count = pick(rng, 4);
  for (int i = 0; i < count; ++i) kids.push_back(unknown(keys[static_cast<std::size_t>(i)], std::to_string(pick(rng, 50))));
  if (pick(rng, 3) != 0) std::shuffle(kids.begin(), kids.end(), rng);
}

Node document_node(std::string key, std::vector<Node> kids, bool record) {
  Node n;
  n.key = std::move(key);
  n.kind = Node::Kind::document;
  n.kids = std::move(kids);
  n.member = true;
  n.record = record;
  n.wrong = "5";
  return n;
}

/// An Addr sub-document decoded into `base` (the member's value in a fresh parent), and
/// what it reads as.
Node gen_addr(Rng& rng, const Addr& base, Addr& expected) {
  expected = base;
  std::vector<Node> kids;
  const int state = pick(rng, 4);
  const std::string new_value = word(rng);
  const std::string old_value = word(rng);
  push_names(kids, state, scalar("street", quote(new_value), "5"), scalar("road", quote(old_value), "5"),
             pick(rng, 2) == 0);
  if (state >= 2)
    expected.street = old_value;
  else if (state == 1)
    expected.street = new_value;
  if (pick(rng, 2) == 0) {
    const int v = pick(rng, 1000);
    kids.push_back(scalar("number", std::to_string(v), "\"x\""));
    expected.number = v;
  }
  if (pick(rng, 2) == 0) {
    Node codes;
    codes.key = "codes";
    codes.kind = Node::Kind::array;
    codes.member = true;
    codes.wrong = "\"x\"";
    expected.codes.clear();
    const int count = pick(rng, 4);
    for (int i = 0; i < count; ++i) {
      const int v = pick(rng, 1000);
      codes.kids.push_back(scalar(std::to_string(i), std::to_string(v), "\"x\""));
      expected.codes.push_back(v);
    }
    kids.push_back(codes);
  }
  const int flat = pick(rng, 3);
  if (flat == 1) {
    kids.push_back(scalar("flat", "null", "5"));
    expected.flat = std::nullopt;
  } else if (flat == 2) {
    const std::string v = word(rng);
    kids.push_back(scalar("flat", quote(v), "5"));
    expected.flat = v;
  }
  // Decoys for a re-read by name: other cases, prefixes, the Extra member's own name.
  arrange(kids, {"u1", "Road", "ROAD", "roadx", "roa", "Street", "streets", "more"}, rng);
  expected.more = extra_of(kids);
  return document_node("", std::move(kids), true);
}

Node keyed(Node n, std::string key) {
  n.key = std::move(key);
  return n;
}

/// A vector<Addr> member's array.
Node gen_addrs(Rng& rng, std::vector<Addr>& expected) {
  Node arr;
  arr.kind = Node::Kind::array;
  arr.member = true;
  arr.wrong = "5";
  expected.clear();
  const int count = pick(rng, 4);
  for (int i = 0; i < count; ++i) {
    Addr a;
    arr.kids.push_back(keyed(gen_addr(rng, Addr{}, a), std::to_string(i)));
    expected.push_back(a);
  }
  return arr;
}

/// An optional<Addr> member's value: null or a document.
Node gen_optional_addr(Rng& rng, std::optional<Addr>& expected) {
  if (pick(rng, 4) == 0) {
    expected = std::nullopt;
    return scalar("", "null", "5");
  }
  Addr a;
  Node n = gen_addr(rng, Addr{}, a);
  expected = a;
  return n;
}

struct Generated {
  Node root;
  Outer expected;
};

Generated gen_outer(Rng& rng) {
  Generated g;
  Outer& e = g.expected;
  std::vector<Node> kids;
  const int id = pick(rng, 1000000);
  kids.push_back(scalar("_id", R"({"$numberLong": ")" + std::to_string(id) + R"("})", "\"x\""));
  e.id = id;
  const std::string name = word(rng);
  kids.push_back(scalar("name", quote(name), "5"));
  e.name = name;
  {  // home / house: an embedded struct with an initializer
    Addr by_new;
    Addr by_old;
    Node new_field = keyed(gen_addr(rng, special_home(), by_new), "home");
    Node old_field = keyed(gen_addr(rng, special_home(), by_old), "house");
    const int state = pick(rng, 4);
    push_names(kids, state, new_field, old_field, pick(rng, 2) == 0);
    e.home = state >= 2 ? by_old : state == 1 ? by_new : special_home();
  }
  {  // work / office: an optional struct
    std::optional<Addr> by_new;
    std::optional<Addr> by_old;
    Node new_field = keyed(gen_optional_addr(rng, by_new), "work");
    Node old_field = keyed(gen_optional_addr(rng, by_old), "office");
    const int state = pick(rng, 4);
    push_names(kids, state, new_field, old_field, pick(rng, 2) == 0);
    e.work = state >= 2 ? by_old : state == 1 ? by_new : std::nullopt;
  }
  {  // box / crate: odm::Embedded with an initializer
    Addr by_new;
    Addr by_old;
    Node new_field = keyed(gen_addr(rng, special_box(), by_new), "box");
    Node old_field = keyed(gen_addr(rng, special_box(), by_old), "crate");
    const int state = pick(rng, 4);
    push_names(kids, state, new_field, old_field, pick(rng, 2) == 0);
    e.box = state >= 2 ? by_old : state == 1 ? by_new : special_box();
  }
  {  // past / history: a vector of structs with an initializer
    std::vector<Addr> by_new;
    std::vector<Addr> by_old;
    Node new_field = keyed(gen_addrs(rng, by_new), "past");
    Node old_field = keyed(gen_addrs(rng, by_old), "history");
    const int state = pick(rng, 4);
    push_names(kids, state, new_field, old_field, pick(rng, 2) == 0);
    e.past = state >= 2 ? by_old : state == 1 ? by_new : one_past();
  }
  if (pick(rng, 2) == 0) {  // by_name: a map of structs (not renamed itself)
    std::vector<Node> values;
    const int count = pick(rng, 3);
    for (int i = 0; i < count; ++i) {
      Addr a;
      const std::string key = "k" + std::to_string(i);
      values.push_back(keyed(gen_addr(rng, Addr{}, a), key));
      e.by_name[key] = a;
    }
    kids.push_back(document_node("by_name", std::move(values), false));
  }
  {  // n / count
    const int by_new = pick(rng, 1000);
    const int by_old = pick(rng, 1000);
    const int state = pick(rng, 4);
    push_names(kids, state, scalar("n", std::to_string(by_new), "\"x\""), scalar("count", std::to_string(by_old), "\"x\""),
               pick(rng, 2) == 0);
    if (state >= 2)
      e.n = by_old;
    else if (state == 1)
      e.n = by_new;
  }
  arrange(kids, {"x1", "House", "HOUSE", "houses", "hom", "Office", "crat", "rest", "count_", "Count"}, rng);
  e.rest = extra_of(kids);
  g.root = document_node("", std::move(kids), true);
  return g;
}

std::string shown(const Outer& o) {
  try {
    return odm::to_bson(o).to_canonical_json();
  } catch (const odm::Error& e) {
    return std::string("<cannot encode: ") + e.what() + ">";
  }
}

/// Every node a fault may replace, with its dotted path.
void member_nodes(Node& n, const std::string& path, std::vector<std::pair<Node*, std::string>>& out) {
  for (Node& k : n.kids) {
    if (!k.member) continue;
    const std::string p = path.empty() ? k.key : path + "." + k.key;
    out.emplace_back(&k, p);
    member_nodes(k, p, out);
  }
}

/// Every struct's document, with its dotted path.
void record_nodes(Node& n, const std::string& path, std::vector<std::pair<Node*, std::string>>& out) {
  if (n.record) out.emplace_back(&n, path);
  for (Node& k : n.kids)
    if (k.member) record_nodes(k, path.empty() ? k.key : path + "." + k.key, out);
}

/// The error of decoding `json` as T: {path(), reason()}, or {"<no error>", ""}.
template <class T>
std::pair<std::string, std::string> decode_failure(const std::string& json) {
  const odm::Document doc = odm::Document::from_json(json);
  try {
    (void)odm::from_bson<T>(doc);
  } catch (const odm::DecodeError& e) {
    return {e.path(), e.reason()};
  }
  return {"<no error>", ""};
}

}  // namespace adversary_25

namespace {

using namespace adversary_25;
using odm_test::decode;
using odm_test::decode_error;

// =============================================================================================
// 1. Randomized against the reference
// =============================================================================================

// Every permutation family of {old, new, other fields}, at the top and one and two levels
// down (a renamed struct holding a renamed member), through optional, Embedded, vectors and
// maps, in odm's order (the fast path) or shuffled: the README's rule, member by member.
TEST(Adversary25Rename, RandomDocumentsReadTheOldNameWholeElseTheNewOne) {
  const unsigned seed = base_seed(2501);
  int both_names = 0;
  int failures = 0;
  for (int i = 0; i < 3000 && failures < 10; ++i) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " iteration " + std::to_string(i));
    Rng rng(seed * 100003ULL + static_cast<unsigned>(i));
    const Generated g = gen_outer(rng);
    const std::string json = render(g.root);
    if (json.find("\"house\"") != std::string::npos && json.find("\"home\"") != std::string::npos) ++both_names;
    Outer got;
    try {
      got = odm::from_bson<Outer>(odm::Document::from_json(json));
    } catch (const odm::Error& e) {
      ADD_FAILURE() << "refused: " << e.what() << "\n  document: " << json;
      ++failures;
      continue;
    }
    if (!(got == g.expected)) {
      ADD_FAILURE() << "document: " << json << "\n  read:     " << shown(got) << "\n  expected: " << shown(g.expected);
      ++failures;
    }
  }
  EXPECT_GT(both_names, 300);  // the reference is not vacuous
}

// README: "a type mismatch ... raises odm::DecodeError whose message names the dotted path";
// each name's field "must hold a value of the member's type" whichever name is read. One
// wrong value anywhere (under the old or the new name, one or two levels down, in an array
// element, a map value) is refused, and path() names the field that holds it.
TEST(Adversary25Rename, OneWrongValueUnderEitherNameIsRefusedWithItsOwnPath) {
  const unsigned seed = base_seed(2502);
  int failures = 0;
  for (int i = 0; i < 3000 && failures < 10; ++i) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " iteration " + std::to_string(i));
    Rng rng(seed * 100003ULL + static_cast<unsigned>(i));
    Generated g = gen_outer(rng);
    std::vector<std::pair<Node*, std::string>> targets;
    member_nodes(g.root, "", targets);
    const auto& target = targets[static_cast<std::size_t>(pick(rng, static_cast<int>(targets.size())))];
    Node& bad = *target.first;
    bad.kind = Node::Kind::scalar;
    bad.text = bad.wrong;
    bad.kids.clear();
    const std::string json = render(g.root);
    const auto [path, reason] = decode_failure<Outer>(json);
    if (path != target.second || reason.rfind("expected ", 0) != 0) {
      ++failures;
      ADD_FAILURE() << "expected an error at " << target.second << ", got " << path << ": " << reason
                    << "\n  document: " << json;
    }
  }
}

// README: "a field that appears twice" is refused; a renamed member's names each "appear
// once". One member name of one struct (old, new or plain, at any level) twice, the copy
// anywhere in that struct's document.
TEST(Adversary25Rename, OneNameTwiceInAnyStructIsRefusedWithItsPath) {
  const unsigned seed = base_seed(2503);
  int failures = 0;
  for (int i = 0; i < 3000 && failures < 10; ++i) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " iteration " + std::to_string(i));
    Rng rng(seed * 100003ULL + static_cast<unsigned>(i));
    Generated g = gen_outer(rng);
    std::vector<std::pair<Node*, std::string>> records;
    record_nodes(g.root, "", records);
    std::shuffle(records.begin(), records.end(), rng);
    bool done = false;
    for (const auto& r : records) {
      std::vector<std::size_t> members;
      for (std::size_t k = 0; k < r.first->kids.size(); ++k)
        if (r.first->kids[k].member) members.push_back(k);
      if (members.empty()) continue;
      const Node copy = r.first->kids[members[static_cast<std::size_t>(pick(rng, static_cast<int>(members.size())))]];
      const auto at = static_cast<std::ptrdiff_t>(pick(rng, static_cast<int>(r.first->kids.size()) + 1));
      r.first->kids.insert(r.first->kids.begin() + at, copy);
      const std::string json = render(g.root);
      const std::string expected_path = r.second.empty() ? copy.key : r.second + "." + copy.key;
      const auto [path, reason] = decode_failure<Outer>(json);
      if (path != expected_path || reason != "field appears twice in the document") {
        ++failures;
        ADD_FAILURE() << "expected " << expected_path << " twice, got " << path << ": " << reason
                      << "\n  document: " << json;
      }
      done = true;
      break;
    }
    EXPECT_TRUE(done);  // the top level always has members
  }
}

// A document odm wrote (both names, new first, in declaration order: the fast path) reads
// back as the object; the same fields with each pair's old name moved first (what a $set of
// both names on a document v1 created leaves) read the same.
TEST(Adversary25Rename, WhatV2WritesReadsBackInItsOrderAndWithOldNamesFirst) {
  const unsigned seed = base_seed(2504);
  for (int i = 0; i < 500; ++i) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " iteration " + std::to_string(i));
    Rng rng(seed * 100003ULL + static_cast<unsigned>(i));
    const Generated g = gen_outer(rng);
    const Outer& value = g.expected;
    const odm::Document written = odm::to_bson(value);
    EXPECT_TRUE(odm::from_bson<Outer>(written) == value) << written.to_canonical_json();
    // Old names first: top-level fields reordered so that each old name precedes its new one.
    std::vector<std::string> keys;
    bson_iter_t it;
    bson_iter_init(&it, written.get());
    while (bson_iter_next(&it)) keys.emplace_back(bson_iter_key(&it));
    std::vector<std::string> order = keys;
    for (const auto& pair : std::vector<std::pair<std::string, std::string>>{
             {"home", "house"}, {"work", "office"}, {"box", "crate"}, {"past", "history"}, {"n", "count"}}) {
      const auto a = std::find(order.begin(), order.end(), pair.first);
      const auto b = std::find(order.begin(), order.end(), pair.second);
      ASSERT_TRUE(a != order.end() && b != order.end()) << written.to_canonical_json();
      std::iter_swap(a, b);
    }
    odm::Document moved;
    for (const std::string& k : order) {
      bson_iter_t f;
      ASSERT_TRUE(bson_iter_init_find(&f, written.get(), k.c_str()));
      bson_append_iter(moved.get_mutable(), k.c_str(), -1, &f);
    }
    EXPECT_TRUE(odm::from_bson<Outer>(moved) == value) << moved.to_canonical_json();
  }
}

// =============================================================================================
// 2. By hand
// =============================================================================================

// README: "a sub-document is never merged from both names: what it lacks is what a fresh
// object holds". A fresh Outer's home is special_home() (street h0, number 70, codes [9],
// flat null). Whatever the order and wherever the pair stands, the old name's sub-document
// wins whole; its unknown fields are the Extra's, none of the new name's.
TEST(Adversary25Rename, AnOldSubDocumentIsNeverMergedWithTheNewOneInAnyOrder) {
  const std::string old_home = R"("house": {"road": "o", "zz": 1})";
  const std::string new_home = R"("home": {"street": "n", "number": 2, "codes": [3], "flat": "f", "yy": 2})";
  const std::string id = R"("_id": 1)";
  const std::string name = R"("name": "x")";
  std::vector<std::string> parts{id, name, old_home, new_home};
  std::sort(parts.begin(), parts.end());
  int orders = 0;
  do {
    std::string json = "{";
    for (std::size_t i = 0; i < parts.size(); ++i) json += (i == 0 ? "" : ", ") + parts[i];
    json += "}";
    SCOPED_TRACE(json);
    const Outer got = decode<Outer>(json);
    EXPECT_EQ(got.home.street, "o");
    EXPECT_EQ(got.home.number, 70);
    EXPECT_EQ(got.home.codes, std::vector<std::int32_t>{9});
    EXPECT_EQ(got.home.flat, std::nullopt);
    EXPECT_EQ(got.home.more.fields().to_canonical_json(), odm_test::canonical(R"({"zz": 1})"));
    ++orders;
  } while (std::next_permutation(parts.begin(), parts.end()));
  EXPECT_EQ(orders, 24);
}

// The same for an optional struct whose old name holds null (README: "null reads nullopt";
// the old name's value is the truth) and a vector whose old name holds an empty array.
TEST(Adversary25Rename, AnOldNullOrEmptyArrayWinsOverTheNewValueInEitherOrder) {
  for (const char* json : {R"({"_id": 1, "name": "x", "work": {"street": "w"}, "office": null})",
                           R"({"_id": 1, "name": "x", "office": null, "work": {"street": "w"}})",
                           R"({"office": null, "_id": 1, "work": {"street": "w"}, "name": "x"})"}) {
    SCOPED_TRACE(json);
    EXPECT_EQ(decode<Outer>(json).work, std::nullopt);
  }
  for (const char* json : {R"({"_id": 1, "name": "x", "past": [{"street": "p"}], "history": []})",
                           R"({"_id": 1, "name": "x", "history": [], "past": [{"street": "p"}]})"}) {
    SCOPED_TRACE(json);
    EXPECT_TRUE(decode<Outer>(json).past.empty());
  }
  // Only the new name: its value; neither: the initializer.
  EXPECT_EQ(decode<Outer>(R"({"_id": 1, "name": "x", "work": {"street": "w"}})").work->street, "w");
  EXPECT_EQ(decode<Outer>(R"({"_id": 1, "name": "x"})").past, one_past());
}

// Wrong types under either name, in either order, name the name that holds them (README:
// the message "names the dotted path"), at the top and two levels down.
TEST(Adversary25Rename, AWrongTypeIsNamedByTheNameThatHoldsItInEitherOrder) {
  struct Case {
    const char* json;
    const char* path;
  };
  for (const Case& c : {
           Case{R"({"_id": 1, "name": "x", "count": "s", "n": 1})", "count"},
           Case{R"({"_id": 1, "name": "x", "n": 1, "count": "s"})", "count"},
           Case{R"({"_id": 1, "name": "x", "count": 1, "n": "s"})", "n"},
           Case{R"({"_id": 1, "name": "x", "n": "s", "count": 1})", "n"},
           Case{R"({"_id": 1, "name": "x", "house": {"road": 5}, "home": {}})", "house.road"},
           Case{R"({"_id": 1, "name": "x", "home": {}, "house": {"road": 5}})", "house.road"},
           Case{R"({"_id": 1, "name": "x", "house": {"street": "a", "road": "b"}, "home": {"road": 5, "street": "c"}})",
                "home.road"},
           Case{R"({"_id": 1, "name": "x", "home": {"road": "b", "street": 5}, "house": {"road": "b"}})", "home.street"},
           Case{R"({"_id": 1, "name": "x", "history": [{"road": "a"}, {"road": 5}], "past": []})", "history.1.road"},
           Case{R"({"_id": 1, "name": "x", "past": [{"street": "a"}, {"street": "b", "road": []}], "history": []})",
                "past.1.road"},
           Case{R"({"_id": 1, "name": "x", "by_name": {"k": {"street": "a", "road": 1}}})", "by_name.k.road"},
           Case{R"({"_id": 1, "name": "x", "crate": {"road": "r"}, "box": 5})", "box"},
           Case{R"({"_id": 1, "name": "x", "box": {"road": "r"}, "crate": {"road": "r", "codes": ["a"]}})",
                "crate.codes.0"},
           Case{R"({"_id": 1, "name": "x", "office": {"road": "r"}, "work": [1]})", "work"},
       }) {
    const auto [path, reason] = decode_failure<Outer>(c.json);
    EXPECT_EQ(path, c.path) << c.json << ": " << reason;
    EXPECT_EQ(reason.rfind("expected ", 0), 0u) << c.json << ": " << reason;
  }
}

// Every order of {a, b under its new name, b under its old name, c} in a strict model reads
// the old name; an unknown field anywhere among them is refused by name.
TEST(Adversary25Rename, AStrictModelReadsEveryOrderOfBothNamesAndRefusesAnyOtherField) {
  std::vector<std::string> parts{R"("a": 1)", R"("b": "new")", R"("bee": "old")", R"("c": 3)"};
  std::sort(parts.begin(), parts.end());
  do {
    std::string json = "{";
    for (std::size_t i = 0; i < parts.size(); ++i) json += (i == 0 ? "" : ", ") + parts[i];
    SCOPED_TRACE(json);
    EXPECT_EQ(decode<Tight>(json + "}"), (Tight{1, "old", 3}));
    for (std::size_t at = 0; at <= parts.size(); ++at) {
      std::vector<std::string> with = parts;
      with.insert(with.begin() + static_cast<std::ptrdiff_t>(at), R"("Bee": 0)");
      std::string bad = "{";
      for (std::size_t i = 0; i < with.size(); ++i) bad += (i == 0 ? "" : ", ") + with[i];
      bad += "}";
      EXPECT_EQ(decode_error<Tight>(bad), "Bee: unknown field (the model is strict)") << bad;
    }
  } while (std::next_permutation(parts.begin(), parts.end()));
  EXPECT_EQ(decode<Tight>(R"({"bee": "old", "a": 1, "c": 0})"), (Tight{1, "old", 0}));
  EXPECT_EQ(decode_error<Tight>(R"({"bee": "old", "a": 1})"), "c: missing required field");
  EXPECT_EQ(decode_error<Tight>(R"({"bee": "old", "a": 1, "bee": "again"})"), "bee: field appears twice in the document");
  EXPECT_EQ(decode_error<Tight>(R"({"b": "x", "bee": "old", "b": "y"})"), "b: field appears twice in the document");
}

// A renamed struct member past the 64th: in odm's order (fast path until it), reversed, the
// old name first or last; read whole from the old name, never merged, and a wrong value
// named by its name.
TEST(Adversary25Rename, ARenamedStructPastTheSixtyFourthMemberReadsTheOldNameWhole) {
  Wide w;
  w.f3 = -3;
  w.f65 = -65;
  w.f67 = -67;
  w.late.street = "new";
  w.late.number = 1;
  w.late.codes = {5};
  const odm::Document written = odm::to_bson(w);
  std::vector<odm::Document> fields;
  bson_iter_t it;
  bson_iter_init(&it, written.get());
  while (bson_iter_next(&it)) {
    odm::Document one;
    bson_append_iter(one.get_mutable(), bson_iter_key(&it), -1, &it);
    fields.push_back(std::move(one));
  }
  const auto key_of = [](const odm::Document& d) {
    bson_iter_t i;
    bson_iter_init(&i, d.get());
    bson_iter_next(&i);
    return std::string(bson_iter_key(&i));
  };
  // Drop odm's "early" (the same value) and put an old value of our own somewhere.
  std::erase_if(fields, [&](const odm::Document& d) { return key_of(d) == "early"; });
  const odm::Document early = odm::Document::from_json(R"({"early": {"road": "old"}})");
  Wide expected = w;
  expected.late = special_home();
  expected.late.street = "old";
  const auto assemble = [](const std::vector<odm::Document>& parts) {
    odm::Document out;
    for (const odm::Document& d : parts) bson_concat(out.get_mutable(), d.get());
    return out;
  };
  for (int variant = 0; variant < 6; ++variant) {
    std::vector<odm::Document> parts = fields;
    if (variant % 2 == 1) std::reverse(parts.begin(), parts.end());
    const auto at = variant / 2 == 0 ? parts.begin() : variant / 2 == 1 ? parts.end() : parts.begin() + 66;
    parts.insert(at, early);
    const odm::Document doc = assemble(parts);
    SCOPED_TRACE(doc.to_canonical_json());
    EXPECT_TRUE(odm::from_bson<Wide>(doc) == expected);
  }
  // Without the old name: the new one's value, as written.
  EXPECT_TRUE(odm::from_bson<Wide>(assemble(fields)) == w);
  // A wrong value under the old name, after the new one.
  std::vector<odm::Document> parts = fields;
  parts.push_back(odm::Document::from_json(R"({"early": {"road": 1}})"));
  try {
    (void)odm::from_bson<Wide>(assemble(parts));
    ADD_FAILURE() << "no error";
  } catch (const odm::DecodeError& e) {
    EXPECT_EQ(e.path(), "early.road") << e.what();
  }
}

// README: "a struct alternative of a std::variant counts either name as the member's
// field"; both names present read the old one, in either order.
TEST(Adversary25Rename, AVariantStructAlternativeReadsTheOldNameOfBothInEitherOrder) {
  for (const char* json : {R"({"_id": 1, "v": {"contact": "n", "phone": "o"}})",
                           R"({"_id": 1, "v": {"phone": "o", "contact": "n"}})", R"({"_id": 1, "v": {"phone": "o"}})"}) {
    const WithVariant got = decode<WithVariant>(json);
    ASSERT_TRUE(std::holds_alternative<Alt>(got.v)) << json;
    EXPECT_EQ(std::get<Alt>(got.v).contact, "o") << json;
  }
  EXPECT_EQ(std::get<std::int32_t>(decode<WithVariant>(R"({"_id": 1, "v": 4})").v), 4);
  // Each name's field must hold a value of the member's type: a wrong new name beside a
  // right old one is no Alt (and not an int either), in either order.
  for (const char* json : {R"({"_id": 1, "v": {"contact": 5, "phone": "o"}})", R"({"_id": 1, "v": {"phone": "o", "contact": 5}})"})
    EXPECT_NE(decode_error<WithVariant>(json).find("none of the variant's 2 alternatives fits"), std::string::npos) << json;
}

// Both the embedded struct (home, from "house") and its member (street, from "road") are
// renamed: a document v1 wrote holds house.road only, and reads home.street from there; the
// value may lie under four paths. adv25 found that typed filters and updates on home.street
// reached neither road path (v1's documents silently not found, not updated). The README
// now says such a path is refused (odm::UsageError naming both renames) rather than
// half-addressed: every typed use of it must throw, and the outer member stays usable.
TEST(Adversary25Rename, AFilterOnARenamedMemberOfARenamedStructIsRefusedNotHalfAddressed) {
  const auto refusal = [](const std::function<void()>& call) -> std::string {
    try {
      call();
    } catch (const odm::UsageError& e) {
      return e.what();
    }
    return "<no UsageError>";
  };
  for (const std::string& error :
       {refusal([] { (void)(odm::field(&Outer::home) / &Addr::street == std::string("x")).bson(); }),
        refusal([] { (void)(odm::field(&Outer::home) / &Addr::street).set(std::string("x")).bson(); })}) {
    EXPECT_NE(error.find("home.street"), std::string::npos) << error;
    EXPECT_NE(error.find("\"road\""), std::string::npos) << error;
    EXPECT_NE(error.find("\"house\""), std::string::npos) << error;
  }
  // The outer member, addressed whole, still follows the rule for `home`.
  const std::string whole = odm::field(&Outer::home).exists(true).bson().to_canonical_json();
  EXPECT_NE(whole.find("house"), std::string::npos) << whole;
}

// README, Decoding: if no alternative fits, "the error says so once, with each
// alternative's reason", and a type mismatch names its path. Where the README is silent on
// a renamed member, a user expects the reason to name the field that holds the wrong value
// (as decoding the struct itself does: "phone: expected string, got int"), not the name
// the document does not have.
TEST(Adversary25Rename, AVariantReasonNamesTheOldNameThatHoldsTheWrongValue) {
  const std::string error = decode_error<WithVariant>(R"({"_id": 1, "v": {"phone": 5}})");
  EXPECT_NE(error.find("phone: expected string, got int"), std::string::npos) << error;
  EXPECT_EQ(error.find("contact"), std::string::npos) << error;
}

// README, Decoding: "decoding walks the document once" (and stays "linear in the input
// however variants nest"); the decoder "never trusts its input". A renamed struct member
// holding a renamed struct member, ... ten levels, with both names at every level: the
// document holds 2^10 leaves. Read with the new name first, each leaf is decoded once; with
// the old name first (what MongoDB's $set of both names leaves on a document v1 created:
// the new field is appended after the old one) a user expects the same order of work, not
// one that grows by half again at every level (3^10 leaf decodes for 2^10 leaves).
TEST(Adversary25Rename, DecodingWorkStaysLinearWhenTheOldNameComesFirstAtEveryLevel) {
  constexpr int depth = 10;
  const auto build = [](bool old_first) {
    std::string doc = R"({"leaf": 1})";
    for (int i = 0; i < depth; ++i)
      doc = old_first ? R"({"old": )" + doc + R"(, "sub": )" + doc + "}" : R"({"sub": )" + doc + R"(, "old": )" + doc + "}";
    return odm::Document::from_json(doc);
  };
  constexpr std::size_t leaves = std::size_t{1} << depth;
  Counted::decodes = 0;
  (void)odm::from_bson<Level<depth>>(build(false));
  const std::size_t new_first = Counted::decodes;
  EXPECT_LE(new_first, 2 * leaves);  // control
  Counted::decodes = 0;
  (void)odm::from_bson<Level<depth>>(build(true));
  const std::size_t old_first = Counted::decodes;
  EXPECT_LE(old_first, 2 * leaves) << "fixed defect came back: with the old name first at each of " << depth
                                    << " levels, " << leaves << " leaves are decoded " << old_first
                                    << " times (new name first: " << new_first << ")";
}

}  // namespace
