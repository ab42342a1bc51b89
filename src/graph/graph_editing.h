#pragma once
// Small edits that graph passes make: new constants and nodes, and rewiring uses of a value.

#include <string>
#include <vector>

#include "tessera/graph.h"

namespace tessera::graph {

// A new constant value named after stem, unique in g.
int add_constant(Graph& g, const Tensor& value, const std::string& stem);
// A new node computing op over inputs; its single output (shape unknown until shape inference) is
// returned. New nodes go to `nodes_out`, which the caller places in order.
int add_node(Graph& g, std::vector<Node>& nodes_out, const std::string& name, const std::string& op,
             const std::vector<int>& inputs, Attributes attributes = {});
// Makes every node input that reads `from` read `to` instead (graph outputs are left alone).
void replace_uses(Graph& g, int from, int to);
// How many node inputs read the value, plus one if it is a graph output.
int use_count(const Graph& g, int value);
bool is_graph_output(const Graph& g, int value);

}  // namespace tessera::graph
