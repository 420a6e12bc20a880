// kind: idle
// change: one data register and a 4-bit cycle counter replace the 8-stage data and valid shift registers: only one accepted start can be in flight, so seven of the eight data stages never hold anything that reaches `dout`; that follows only from the reachable states (busy blocks a new start), which Yosys cannot reason about.
module idle_pipe (
    input        clk,
    input        rst,
    input        start,
    input  [7:0] din,
    output       busy,
    output       done,
    output [7:0] dout
);
    reg [3:0] cnt;           // 0: idle; k: the accepted start is k cycles old
    reg [7:0] data;

    assign busy = (cnt != 4'd0);
    assign done = (cnt == 4'd8);

    always @(posedge clk) begin
        if (rst)                  cnt <= 4'd0;
        else if (done)            cnt <= 4'd0;
        else if (busy | start)    cnt <= cnt + 4'd1;
        if (rst)                  data <= 8'd0;
        else if (start & ~busy)   data <= din;
    end

    assign dout = done ? data : 8'd0;
endmodule
