// Reference for idle_pipe: fixed-latency unit; a start is accepted only while idle and its
// data come out eight cycles later.
module idle_pipe (
    input        clk,
    input        rst,
    input        start,
    input  [7:0] din,
    output       busy,
    output       done,
    output [7:0] dout
);
    reg [7:0] v;             // v[k]: the accepted start is k+1 cycles old
    reg [7:0] d [0:7];       // data travelling with it
    integer i;

    assign busy = |v;

    always @(posedge clk) begin
        if (rst) begin
            v <= 8'd0;
            for (i = 0; i < 8; i = i + 1) d[i] <= 8'd0;
        end else begin
            v    <= {v[6:0], start & ~busy};
            d[0] <= din;
            for (i = 1; i < 8; i = i + 1) d[i] <= d[i-1];
        end
    end

    assign done = v[7];
    assign dout = v[7] ? d[7] : 8'd0;
endmodule
