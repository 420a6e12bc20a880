// Self-checking testbench for stack4: reset, fill past full, empty past empty, and random push/pop runs, against
// a model stack.
`timescale 1ns/1ps
module tb_stack4;
    reg clk, rst, push, pop;
    reg [7:0] din;
    wire [7:0] dout;
    wire empty, full;
    reg [7:0] m_mem [0:3];
    reg [7:0] m_dout;
    integer m_n, errors, i, seed;

    stack4 dut (.clk(clk), .rst(rst), .push(push), .pop(pop), .din(din), .dout(dout), .empty(empty), .full(full));

    always #5 clk = ~clk;

    task step(input r, input pu, input po, input [7:0] d);
        begin
            rst = r; push = pu; pop = po; din = d;
            @(posedge clk);
            if (r) begin
                m_n = 0; m_dout = 8'd0;
            end else if (pu && m_n != 4) begin
                m_mem[m_n] = d; m_n = m_n + 1;
            end else if (po && m_n != 0) begin
                m_n = m_n - 1; m_dout = m_mem[m_n];
            end
            #1;
            if (dout !== m_dout || empty !== (m_n == 0) || full !== (m_n == 4)) begin
                errors = errors + 1;
                if (errors <= 5) $display("MISMATCH at %0t: got dout=%h empty=%b full=%b, expected %h %b %b",
                                          $time, dout, empty, full, m_dout, m_n == 0, m_n == 4);
            end
        end
    endtask

    initial begin
        clk = 0; errors = 0; seed = 4; m_n = 0; m_dout = 0;
        step(1, 0, 0, 8'h00);
        for (i = 0; i < 6; i = i + 1) step(0, 1, 0, 8'h11 * (i + 1));   // fill, then pushes while full
        for (i = 0; i < 6; i = i + 1) step(0, 0, 1, 8'h00);             // empty, then pops while empty
        step(0, 1, 1, 8'hA5);                                          // push wins
        for (i = 0; i < 3000; i = i + 1)
            step(($random(seed) & 127) == 0, $random(seed), $random(seed), $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
