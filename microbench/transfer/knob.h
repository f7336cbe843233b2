#pragma once
// A mechanism's tuning knobs, declared once: name, flag, unit, allowed values, default.
// Everything else derives from the declarations of the registered mechanisms: the point
// grid and its override flags, the point's name, the CSV columns, the sweep drivers'
// readers and the figure scripts' lists. Plain C++: the CPU tests and sweeps use it too.
#include <map>
#include <string>
#include <vector>

namespace pk::transfer {

struct Knob {
  std::string name;          // CSV column and point-name key
  std::string flag;          // command-line flag (without "--") taking a list or range
  std::string unit;          // for help and figure axes ("" when dimensionless)
  std::string help;
  std::vector<int> allowed;  // empty: any value >= 1 that the mechanism's resolve() accepts
};

// A knob as one mechanism uses it. default_value 0: resolve() computes it from the point.
struct KnobUse {
  Knob knob;
  int default_value = 0;
};

// The knobs several mechanisms share, declared here once.
namespace knobs {
// The SM count's flag accepts `all` (every SM of the issuing GPU).
extern const Knob sms;
extern const Knob blocks_per_sm;
extern const Knob threads;
}  // namespace knobs

// Knob values of one point, by knob name; a knob the mechanism does not use is absent.
using KnobValues = std::map<std::string, int>;

}  // namespace pk::transfer
