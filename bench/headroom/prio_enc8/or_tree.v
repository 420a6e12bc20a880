// kind: decode
// change: the priority encoder as a 2-level tree (is any of the top four set, then the same 4-input encoder on the chosen half) instead of a casez chain; ABC already flattens the chain, and the tree is slower (0.80x).
module prio_enc8 (
    input  [7:0] req,
    output [2:0] idx,
    output       valid
);
    // each index bit as an OR of the requests that set it, masked by the higher ones
    wire hi = |req[7:4];
    wire [3:0] q = hi ? req[7:4] : req[3:0];
    assign idx[2] = hi;
    assign idx[1] = q[3] | q[2];
    assign idx[0] = q[3] | (~q[2] & q[1]);
    assign valid = |req;
endmodule
