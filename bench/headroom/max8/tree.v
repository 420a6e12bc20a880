// kind: loop_tree
// change: a balanced tree of seven two-input compare-and-select nodes (depth 3) instead of the loop's eight compares in series; each node keeps the left (earlier) byte unless the right one is strictly greater, so the lowest index still wins a tie.
module max8 (
    input      [63:0] data,
    output     [7:0]  mx,
    output     [2:0]  idx
);
    function [10:0] pick(input [10:0] l, input [10:0] r);
        pick = (r[7:0] > l[7:0]) ? r : l;
    endfunction
    wire [10:0] a0 = pick({3'd0, data[7:0]},   {3'd1, data[15:8]});
    wire [10:0] a1 = pick({3'd2, data[23:16]}, {3'd3, data[31:24]});
    wire [10:0] a2 = pick({3'd4, data[39:32]}, {3'd5, data[47:40]});
    wire [10:0] a3 = pick({3'd6, data[55:48]}, {3'd7, data[63:56]});
    assign {idx, mx} = pick(pick(a0, a1), pick(a2, a3));
endmodule
