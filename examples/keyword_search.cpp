// Keyword search (seeds 000 and 002): the volume's topics are an array of keywords with a
// (multikey) index on it, so "books about voyages" is one indexed query:
//
//   db.volumes.createIndex({topics: 1})
//   db.volumes.findOne({topics: "voyage"}, {title: 1})
#include "example_support.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

/// The seed shows no _id: the server assigns an ObjectId.
struct Volume {
  std::string title;
  std::string author;
  std::int32_t published;
  std::int32_t ISBN;  // the shell reads 0451526996 as the number 451526996
  std::vector<std::string> topics;
  bool operator==(const Volume&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "volumes";
    static constexpr auto indexes = odm::indexes(odm::index(&Volume::topics));  // the keyword index
  };
};

/// {title: 1}: only the title comes back.
struct VolumeTitle {
  std::string title;
};

}  // namespace

int main() {
  using example::check;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto volumes = db.collection<Volume>();
    volumes.drop();

    example::step("store the volume with its topics");
    const Volume moby{"Moby-Dick",
                      "Herman Melville",
                      1851,
                      451526996,
                      {"whaling", "allegory", "revenge", "American", "novel", "nautical", "voyage", "Cape Cod"}};
    volumes.insert_one(moby);
    example::show("stored", moby);
    const auto report = example::sync_indexes<Volume>(db);
    check(report.created.size() + report.unchanged.size() == 1, "the topics index is planned");

    example::step("findOne({topics: \"voyage\"}, {title: 1})");
    const std::optional<VolumeTitle> found = volumes.find_one<VolumeTitle>(odm::field(&Volume::topics) == "voyage");
    check(found.has_value(), "a volume about voyages was found");
    example::show("found", *found);
    check(found->title == "Moby-Dick", "it is Moby-Dick");

    example::step("more keyword queries");
    check(!volumes.find_one<VolumeTitle>(odm::field(&Volume::topics) == "romance"), "nothing about romance");
    const auto both = volumes.find(odm::field(&Volume::topics).all({"whaling", "revenge"})).to_vector();
    check(both.size() == 1 && both[0] == moby, "{topics: {$all: [\"whaling\", \"revenge\"]}} finds the whole volume");
    example::show("read", both[0]);
    check(volumes.count(odm::field(&Volume::topics).in({"Cape Cod", "Nantucket"})) == 1,
          "{topics: {$in: [\"Cape Cod\", \"Nantucket\"]}} counts one");
  });
}
