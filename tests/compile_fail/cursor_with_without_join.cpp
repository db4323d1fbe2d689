// expect: odm: Cursor::with resolves references with odm's joins; #include <odm/join/join.hpp>
// The driver does not depend on joins: Cursor::with needs the join header, and says so.
// The twin includes the join header alone (no umbrella header) and compiles.
#include <odm/driver/client.hpp>
#include <odm/fields/ref.hpp>
#ifndef ODM_COMPILE_FAIL
#include <odm/join/join.hpp>
#endif

#include <string>

namespace cf {
struct Publisher {
  std::string id;
  std::string name;
};
struct Book {
  std::string id;
  odm::Ref<Publisher> publisher;
};
}  // namespace cf

int main() {
  odm::Client client("mongodb://127.0.0.1:1/");
  auto books = client.database("shop").collection<cf::Book>().find().with(&cf::Book::publisher);
  return 0;
}
