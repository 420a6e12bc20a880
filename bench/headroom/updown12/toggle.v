// kind: counter_toggle
// change: the two wrap-around compares only restate modulo-4096 arithmetic, so the incrementer, decrementer, compares and muxes become one toggle counter: bit k flips when every lower bit equals the direction (all ones counting up, all zeros counting down).
module updown12 (
    input             clk,
    input             rst,
    input             en,
    input             up,
    output reg [11:0] q
);
    wire [11:0] e = ~(q ^ {12{up}});
    wire [11:0] t;
    assign t[0] = 1'b1;
    genvar k;
    generate
        for (k = 1; k < 12; k = k + 1) begin : g
            assign t[k] = &e[k-1:0];
        end
    endgenerate
    always @(posedge clk)
        if (rst) q <= 12'd0;
        else if (en) q <= q ^ t;
endmodule
