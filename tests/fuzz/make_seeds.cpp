// Writes the seed corpus of the fuzz targets into tests/fuzz/corpus/ (run once by hand;
// the files are committed): `fuzz_seeds SOURCE_DIR`. BSON of every fuzz model, random
// documents of every BSON type (odm_hostile::RandomDocuments), documents at and past the
// nesting limit, their Extended JSON, and decimal texts of every shape.

#include "fuzz_models.hpp"
#include "bson/hostile_support.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace fuzz_models;

void write(const fs::path& dir, const std::string& name, const void* data, std::size_t size) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary).write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

Expr expression(int levels) {
  if (levels == 0) return Expr{Leaf{7}};
  Scaled scaled{1.5, {}};
  scaled.terms.push_back(expression(levels - 1));
  if (levels % 2 == 0) return Expr{Sum{{std::move(scaled.terms.front()), Expr{std::optional<std::string>("x")}}, "+"}};
  return Expr{std::move(scaled)};
}

std::vector<odm::Document> documents() {
  std::vector<odm::Document> out;
  Everything all{};
  all.id = odm::ObjectId::parse("612d1e835ebee16872a109a4");
  all.flag = true;
  all.i32 = -5;
  all.i16 = 12;
  all.i64 = 5000000000;
  all.d = 7.3;
  all.s = std::string("a\0b\xc3\xa9", 5);
  all.color = Color::green;
  all.level = Level::high;
  all.when = std::chrono::system_clock::time_point(std::chrono::milliseconds(1615714013589));
  all.day = std::chrono::sys_days(std::chrono::days(18000));
  all.ms = std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(253402300800000));
  all.maybe = "m";
  all.numbers = {1, 2, 3};
  all.grid = {{"a"}, {}, {"b", "c"}};
  all.bits = {true, false};
  all.triple = {1, 2, 3};
  all.counts = {{"k", 1}, {"l", 2}};
  all.places = {{"home", Address{"1 Main", "Springfield"}}};
  all.author = std::vector<std::string>{"x", "y"};
  all.either = Publisher{"oreilly", "O'Reilly"};
  all.address = Address{"s", "c"};
  all.addresses = {Address{"s1", "c1"}, Address{"s2", "c2"}};
  all.blob = odm::Binary{{1, 2, 3}, BSON_SUBTYPE_UUID};
  all.exact = odm::Decimal("2.0990");
  all.price = odm::Money("119.99", "USD");
  all.cents = odm::ScaledAmount<100>::from_units(1999);
  all.display = odm::DisplayMoney(odm::Decimal("9.99"), "EUR");
  all.legacy = odm::Decimal("80.00");
  all.local = odm::LocalTime{std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(1)), -120};
  all.publisher = odm::Ref<Publisher>(std::string("oreilly"));
  all.category = odm::ParentRef<Category>(std::string("books"));
  all.parts = odm::RefMany<Part>(std::vector<odm::ObjectId>{odm::ObjectId::parse("00000000000000000000aaaa")});
  all.reviews = std::vector<Review>{Review{1, "joe", std::chrono::sys_days(std::chrono::days(17000))}};
  out.push_back(odm::to_bson(all));
  out.push_back(odm::to_bson(Strict{1, "t", std::string("s")}));
  out.push_back(odm::to_bson(Sparse{5}));
  out.push_back(odm::to_bson(Node{{Node{{Node{}}}, Node{}}}));
  out.push_back(odm::to_bson(Tree{"root", {{"a", Tree{"leaf", {}}}, {"b", Tree{}}}}));
  out.push_back(odm::to_bson(expression(6)));
  out.push_back(odm::to_bson(Category{"db", odm::ParentRef<Category>(std::string("books")), odm::RefMany<Category>(std::vector<std::string>{"mongodb"})}));
  odm_hostile::RandomDocuments random(20261107);
  for (int i = 0; i < 40; ++i) out.push_back(random.next());
  for (const odm_hostile::Bytes& deep : {odm_hostile::nested_documents(100), odm_hostile::nested_documents(101),
                                         odm_hostile::node_chain(50), odm_hostile::node_chain(51)}) {
    bson_t view;
    bson_init_static(&view, deep.data(), deep.size());
    out.push_back(odm::Document::copy_of(&view));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds SOURCE_DIR\n");
    return 2;
  }
  const fs::path corpus = fs::path(argv[1]) / "tests" / "fuzz" / "corpus";
  int n = 0;
  for (const odm::Document& doc : documents()) {
    const std::string name = "seed-" + std::to_string(n++);
    write(corpus / "fuzz_from_bson", name + ".bson", doc.data(), doc.size());
    write(corpus / "fuzz_document_json", name + ".bson", doc.data(), doc.size());
    try {
      const std::string relaxed = doc.to_json();
      const std::string canonical = doc.to_canonical_json();
      write(corpus / "fuzz_from_json", name + "-relaxed.json", relaxed.data(), relaxed.size());
      write(corpus / "fuzz_from_json", name + "-canonical.json", canonical.data(), canonical.size());
    } catch (const odm::EncodeError&) {
    }
  }
  const char* json[] = {
      R"j({"age": {"$type": "string"}, "name": {"$regex": "^a", "$options": "i"}})j",
      R"j({"a": [{"$code": "f()"}, {"$code": "g()", "$scope": {"x": [1, {"$numberLong": "2"}]}}]})j",
      R"j({"": [{"k": 1}, [{"$dbPointer": {"$ref": "db.c", "$id": {"$oid": "57e193d7a9cc81b4027498b5"}}}]]})j",
      R"j({"d": {"$date": {"$numberLong": "253402300800000"}}, "e": {"$date": "1970-01-01T00:00:00Z"}})j",
      R"j({"b": {"$binary": {"base64": "AQID", "subType": "80"}}, "u": {"$uuid": "c8edabc3-f738-4ca3-b68d-ab92a91478a3"}})j",
      R"j({"t": {"$timestamp": {"t": 1, "i": 2}}, "m": {"$minKey": 1}, "x": {"$maxKey": 1}, "n": {"$undefined": true}})j",
      R"j({"n": {"$numberDouble": "-Infinity"}, "z": {"$numberDecimal": "-0.0"}, "s": {"$symbol": "s"}})j",
      R"j({"node": {"factor": 2.5, "terms": [{"node": {"value": 1}}, {"node": null}, {"node": "x"}]}})j",
  };
  for (const char* text : json) {
    const std::string name = "text-" + std::to_string(n++) + ".json";
    write(corpus / "fuzz_from_json", name, text, std::char_traits<char>::length(text));
  }
  const char* decimals[] = {"0", "-0", "0.0", "1", "-1", "2.099", "2.0990", "1.23E+3", "1.23e-3", "+5", "-0.000001",
                            "1E6144", "1E-6176", "9.999999999999999999999999999999999E+6144",
                            "1234567890123456789012345678901234", "12345678901234567890123456789012345",
                            "1000000000000000000000000000000000000", "0E-6177", "0E+6112", "1E-6177",
                            "NaN", "-Infinity", "Inf", "1e", ".5", "5.", "1.2.3", "", " 1", "0x10", "1_000"};
  for (const char* text : decimals) {
    const std::string name = "decimal-" + std::to_string(n++) + ".txt";
    write(corpus / "fuzz_decimal", name, text, std::char_traits<char>::length(text));
  }
  std::printf("wrote %d seeds under %s\n", n, corpus.c_str());
}
