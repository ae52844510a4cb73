// Work-group sampling for the recorder plugin.
//
// Which work-groups of a launch are recorded is decided from the linear group
// index alone, so the choice is the same on every run and on every thread:
// all, the first N, every k-th, or N groups drawn with a seeded generator.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <unordered_set>
#include <vector>

namespace tracekit
{

inline uint64_t splitmix64(uint64_t& state)
{
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct Sampler
{
  enum Mode { ALL, FIRST, EVERY, RANDOM } mode = ALL;
  uint64_t n = 0, k = 1, seed = 0, total = 0;
  std::vector<uint8_t> chosen;  // RANDOM only: one flag per group

  static constexpr uint64_t END = ~(uint64_t)0;

  // Parses "all", "first:N", "every:K" or "random:N:SEED"; returns false if malformed.
  bool parse(const char* text)
  {
    if (!text || !*text || std::string(text) == "all")
      return true;
    std::string s(text);
    size_t c1 = s.find(':');
    std::string head = s.substr(0, c1);
    std::string rest = c1 == std::string::npos ? "" : s.substr(c1 + 1);
    size_t c2 = rest.find(':');
    uint64_t a = strtoull(rest.substr(0, c2).c_str(), nullptr, 10);
    uint64_t b = c2 == std::string::npos ? 0 : strtoull(rest.substr(c2 + 1).c_str(), nullptr, 10);
    if (head == "first" && a > 0) { mode = FIRST; n = a; return true; }
    if (head == "every" && a > 0) { mode = EVERY; k = a; return true; }
    if (head == "random" && a > 0) { mode = RANDOM; n = a; seed = b; return true; }
    return false;
  }

  // Prepares the choice for a launch of ``groups`` work-groups.
  void start(uint64_t groups)
  {
    total = groups;
    chosen.clear();
    if (mode != RANDOM)
      return;
    chosen.assign(groups, 0);
    uint64_t want = n < groups ? n : groups;
    uint64_t state = seed;
    // Floyd's algorithm: ``want`` distinct indices, each subset equally likely.
    for (uint64_t j = groups - want; j < groups; j++)
    {
      uint64_t t = splitmix64(state) % (j + 1);
      if (chosen[t])
        chosen[j] = 1;
      else
        chosen[t] = 1;
    }
  }

  bool pick(uint64_t g) const
  {
    switch (mode)
    {
    case ALL: return g < total;
    case FIRST: return g < n && g < total;
    case EVERY: return g % k == 0 && g < total;
    case RANDOM: return g < total && chosen[g];
    }
    return false;
  }

  // Smallest recorded group index >= g, or END.
  uint64_t next(uint64_t g) const
  {
    if (mode == EVERY && g % k)
      g += k - g % k;
    while (g < total && !pick(g))
    {
      if (mode != RANDOM)
        return END;
      g++;
    }
    return g < total ? g : END;
  }

  std::string json() const
  {
    const char* names[] = {"all", "first", "every", "random"};
    std::string out = std::string("{\"mode\":\"") + names[mode] + "\"";
    if (mode == FIRST || mode == RANDOM)
      out += ",\"n\":" + std::to_string(n);
    if (mode == EVERY)
      out += ",\"k\":" + std::to_string(k);
    if (mode == RANDOM)
      out += ",\"seed\":" + std::to_string(seed);
    return out + "}";
  }
};

} // namespace tracekit
