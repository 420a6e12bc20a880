// Self-checking testbench for pipe_sum4: reset, extreme operands, random runs with resets in between, against
// a model that delays a + b + c + d and in_valid by three cycles (zeros after a reset).
`timescale 1ns/1ps
module tb_pipe_sum4;
    reg clk, rst, in_valid;
    reg [7:0] a, b, c, d;
    wire out_valid;
    wire [9:0] sum;
    reg [9:0] m_s [0:2];
    reg m_v [0:2];
    integer errors, i, seed;

    pipe_sum4 dut (.clk(clk), .rst(rst), .in_valid(in_valid), .a(a), .b(b), .c(c), .d(d),
                   .out_valid(out_valid), .sum(sum));

    always #5 clk = ~clk;

    task step(input r, input v, input [7:0] ia, input [7:0] ib, input [7:0] ic, input [7:0] id);
        begin
            rst = r; in_valid = v; a = ia; b = ib; c = ic; d = id;
            @(posedge clk);
            if (r) begin
                m_s[2] = 0; m_s[1] = 0; m_s[0] = 0; m_v[2] = 0; m_v[1] = 0; m_v[0] = 0;
            end else begin
                m_s[2] = m_s[1]; m_s[1] = m_s[0]; m_s[0] = ia + ib + ic + id;
                m_v[2] = m_v[1]; m_v[1] = m_v[0]; m_v[0] = v;
            end
            #1;
            if (sum !== m_s[2] || out_valid !== m_v[2]) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH at %0t: got sum=%h valid=%b, expected %h %b", $time, sum,
                                          out_valid, m_s[2], m_v[2]);
            end
        end
    endtask

    initial begin
        clk = 0; errors = 0; seed = 58;
        step(1, 0, 0, 0, 0, 0);
        step(1, 0, 0, 0, 0, 0);
        step(0, 1, 8'hFF, 8'hFF, 8'hFF, 8'hFF);
        step(0, 1, 8'hFF, 8'h00, 8'hFF, 8'h01);
        step(0, 0, 8'h80, 8'h80, 8'h80, 8'h80);
        for (i = 0; i < 5; i = i + 1) step(0, 1, 0, 0, 0, 0);
        for (i = 0; i < 3000; i = i + 1)
            step(($random(seed) & 127) == 0, $random(seed), $random(seed), $random(seed), $random(seed),
                 $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
