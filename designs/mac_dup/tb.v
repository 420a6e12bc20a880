// Self-checking testbench for mac_dup. Inputs change on the falling edge; outputs are
// checked 1 ns later against a model updated on the same rising edges as the design.
`timescale 1ns/1ps
module tb_mac_dup;
    reg         clk, rst, en, clr;
    reg  [7:0]  a, b;
    wire [15:0] prod;
    wire [19:0] acc;
    reg  [15:0] m_prod;
    integer     m_acc;
    integer     errors, n, seed, r;

    mac_dup dut (.clk(clk), .rst(rst), .en(en), .clr(clr), .a(a), .b(b), .prod(prod), .acc(acc));

    initial clk = 0;
    always #5 clk = ~clk;

    always @(posedge clk) begin
        if (rst) begin m_prod <= 0; m_acc <= 0; end
        else if (en) begin
            m_prod <= a * b;
            m_acc  <= ((clr ? 0 : m_acc) + a * b) % 1048576;
        end
    end

    task check;
        begin
            #1;
            if (prod !== m_prod || acc !== m_acc[19:0]) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH t=%0t rst=%b en=%b clr=%b a=%h b=%h: got prod=%h acc=%h, expected prod=%h acc=%h",
                             $time, rst, en, clr, a, b, prod, acc, m_prod, m_acc[19:0]);
            end
        end
    endtask

    task step(input r_i, input en_i, input c_i, input [7:0] a_i, input [7:0] b_i);
        begin
            @(negedge clk);
            rst = r_i; en = en_i; clr = c_i; a = a_i; b = b_i;
            check;
        end
    endtask

    initial begin
        errors = 0; seed = 20;
        rst = 1; en = 0; clr = 0; a = 0; b = 0;
        step(1, 1, 0, 8'hFF, 8'hFF);
        // directed: largest products until the 20-bit sum wraps, clear, hold, reset over enable
        for (n = 0; n < 40; n = n + 1) step(0, 1, 0, 8'hFF, 8'hFF);
        step(0, 1, 1, 8'h01, 8'h01); step(0, 0, 0, 8'h55, 8'hAA); step(0, 0, 1, 8'h12, 8'h34);
        step(0, 1, 0, 8'h80, 8'h80); step(0, 1, 1, 8'h00, 8'hFF); step(0, 1, 0, 8'hFF, 8'h00);
        step(1, 1, 0, 8'hFF, 8'hFF); step(0, 0, 0, 8'h00, 8'h00);
        for (n = 0; n < 8; n = n + 1) begin
            step(0, 1, 0, 8'd1 << n, 8'hFF); step(0, 1, 0, 8'hFF, 8'd1 << n);
            step(0, 1, 0, ~(8'd1 << n), 8'hFF);
        end
        // random: reset 1/256, enable 3/4, clear 1/64 (long sums that wrap)
        for (n = 0; n < 5000; n = n + 1) begin
            r = $random(seed);
            step(r[7:0] == 8'd0, r[9:8] != 2'd0, r[15:10] == 6'd0, $random(seed), $random(seed));
        end
        @(negedge clk);
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
