// A program outside odm's tree, built against an installed odm.
#include <odm/odm.hpp>

#include <iostream>
#include <string>

struct Client {
  std::string id;
  std::string name;
};

int main() {
  const Client joe{"joe", "Joe Bookreader"};
  const auto json = odm::to_json(joe);
  const auto back = odm::from_json<Client>(json);
  std::cout << json << "\n";
  return back.id == joe.id && back.name == joe.name && json.find("\"_id\"") != std::string::npos ? 0 : 1;
}
