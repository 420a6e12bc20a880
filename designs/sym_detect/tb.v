// Self-checking testbench for sym_detect: the sequence alone, with a repeated 2 before it, broken at each
// position, back to back, under reset, and long random runs (biased toward the sequence's symbols), against a
// model that keeps the last four symbols.
`timescale 1ns/1ps
module tb_sym_detect;
    reg clk, rst;
    reg [1:0] key;
    wire hit;
    reg [7:0] h;          // the last four symbols, newest in h[1:0]
    reg [2:0] n;          // how many symbols since reset (saturating at 4)
    integer errors, i, seed;

    sym_detect dut (.clk(clk), .rst(rst), .key(key), .hit(hit));

    always #5 clk = ~clk;

    task step(input r, input [1:0] k);
        begin
            rst = r; key = k;
            @(posedge clk);
            if (r) begin h = 0; n = 0; end
            else begin h = {h[5:0], k}; n = (n == 4) ? 4 : n + 1; end
            #1;
            if (hit !== (n == 4 && h == 8'b10_00_11_01)) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH at %0t: hit=%b h=%b n=%0d", $time, hit, h, n);
            end
        end
    endtask

    task seq; begin step(0, 2); step(0, 0); step(0, 3); step(0, 1); end endtask

    initial begin
        clk = 0; errors = 0; seed = 58; h = 0; n = 0;
        step(1, 0); step(1, 2);
        seq; step(0, 0);
        step(0, 2); seq; step(0, 3);
        seq; seq; seq;
        step(0, 2); step(0, 1); step(0, 2); step(0, 0); step(0, 2); step(0, 0); step(0, 3); step(0, 0);
        seq; step(1, 1); step(0, 1);
        step(0, 2); step(0, 0); step(1, 3); step(0, 1);
        for (i = 0; i < 4000; i = i + 1)
            if (($random(seed) & 7) == 0) seq;
            else step(($random(seed) & 255) == 0, $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
